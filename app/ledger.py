"""The data-boundary ledger: every time a conversation's data crossed to a model, and why.

Built only from what the conversation stored, so it is as true after a restart
as during the chat:

- a *disclosure* notice names the model that got pictures or pages, its host,
  what was sent and (in its details) why;
- a *routing* notice to a model in the cloud means the whole message (and the
  conversation before it) went there;
- a *heal* notice means the model was sent the turn's pictures and refused them;
- an answer from a cloud model the person chose themselves (no notice: it was
  their choice) is a crossing too, once per turn, when the caller can say which
  providers are in the cloud (`endpoints`).

A notice that records a crossing carries it as facts (`Notice.crossed`), which
are listed as they are. Notices stored before that are words only, so they are
read with patterns that accept the older wordings too; a disclosure nobody can
read is still listed, with its text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from app.store import StoredItem
from routing.endpoints import endpoint_name, on_this_computer
from routing.refs import ref_halves
from routing.transcript import WHOLE_MESSAGE, Message, Notice, NoticeKind

# "<looker> at <host> looked at 2 pictures (a.png, b.png) and described them for <model>, ..."
# "<looker> at <host> was sent 2 pictures (…) to describe for <model>, which can't see; …"
_LOOKED = re.compile(
    r"^(?P<model>\S+) at (?P<host>\S+) (?:looked at|was sent) "
    r"(?P<what>\d+ pictures? \(.*\)) (?:and described (?:them|it) )?(?:to describe )?"
    r"for (?P<target>\S+?), which can't see(?P<rest>.*)$",
    re.S,
)
# "This turn's 2 pictures now go (a.png, b.png) to <model> at <host> (in the cloud)."
# and the older "This turn's 2 pictures now go to <model> at <url> (on this computer)."
_TAKEOVER = re.compile(
    r"^This turn's (?P<count>\d+) (?P<noun>pictures?) now go(?:es)?"
    r"(?: \((?P<labels>.*)\))? to (?P<model>\S+) at (?P<host>\S+) \((?P<where>[^)]*)\)\.?$",
    re.S,
)
# "<model> answers at <host> (on this computer): <reason>." and the older
# "<model> answers (in the cloud): <reason>." / "<model> now answers (…) at <host>: <reason>."
_ROUTED = re.compile(
    r"^(?P<model>\S+) (?:now )?answers(?: at (?P<host_first>\S+))? \((?P<where>[^)]*)\)"
    r"(?: at (?P<host>\S+))?: (?P<reason>.*?)\.?$",
    re.S,
)
_HEALED = re.compile(r"^(?P<model>\S+) refused the pictures")
_ANY_MODEL_AT = re.compile(r"(?P<model>[\w.-]+:\S+) at (?P<host>[^\s,()]+)")
_WHY_PREFIX = re.compile(r"^Why \S+: ")


@dataclass(frozen=True)
class Endpoint:
    """Where one provider's models run: its host and whether that is this computer."""

    host: str
    local: bool


@dataclass(frozen=True)
class Crossing:
    """One time data of the conversation went to a model: when, to whom, what and why."""

    when: float  # seconds since the epoch, as the store keeps times
    model: str  # provider:model
    host: str  # host[:port]; "" when the conversation doesn't say and it isn't known now
    what: str
    why: str
    local: bool | None = None  # on this computer (False: it left it); None when unknown
    kind: NoticeKind | None = None  # the notice it comes from; None for the person's choice
    # The version it is on, where the chat has versions there ("" where it has one), e.g.
    # "the answer to “What colour…”, version 1 of 2 (not shown)" (app/ledger_versions.py).
    version: str = ""

    @property
    def where(self) -> str:
        """The endpoint in words."""
        place = {True: "on this computer", False: "off this computer", None: ""}[self.local]
        host = self.host or "host not recorded"
        return f"{host} ({place})" if place else host


def ledger(
    items: Iterable[StoredItem], endpoints: Mapping[str, Endpoint] | None = None
) -> list[Crossing]:
    """Every crossing the conversation's stored items record, oldest first.

    `endpoints` (provider id → where it runs) fills in hosts the notices don't
    name and lets answers from a cloud model the person chose count too.
    """
    known = endpoints or {}
    along = Along()
    crossings = [c for c in (along.step(stored, known) for stored in items) if c is not None]
    return with_hosts(crossings)


@dataclass
class Along:
    """What a walk down one branch knows of the turn it is in, to read its items."""

    turn_pictures: list[str] = field(default_factory=list)  # for heal notices' words
    told: set[str] = field(default_factory=set)  # models listed as getting the whole message

    def step(self, stored: StoredItem, known: Mapping[str, Endpoint]) -> Crossing | None:
        """The crossing this item records, if any; the walk moves past it."""
        item = stored.item
        if isinstance(item, Message):
            if item.role == "user":
                self.turn_pictures, self.told = [], set()
            self.turn_pictures.extend(_picture_labels(item))
            crossing = _chosen_answer(stored.created_at, item, known, self.told)
        else:
            crossing = _from_notice(stored.created_at, item, known, self.turn_pictures)
        if crossing is not None and crossing.what == WHOLE_MESSAGE:
            self.told.add(crossing.model)
        return crossing

    def copy(self) -> Along:
        """The same knowledge, for a branch of its own."""
        return Along(list(self.turn_pictures), set(self.told))


def with_hosts(crossings: list[Crossing]) -> list[Crossing]:
    """A notice that named no host (routing) gets the one another notice gave its provider."""
    named = {_provider_id(c.model): c.host for c in crossings if c.host and c.model}
    return [
        replace(c, host=named.get(_provider_id(c.model), "")) if not c.host else c
        for c in crossings
    ]


def endpoints_of(providers: Iterable[tuple[str, str, bool]]) -> dict[str, Endpoint]:
    """Endpoints from (provider id, base URL, is local) triples."""
    return {pid: Endpoint(endpoint_name(url), local) for pid, url, local in providers}


def summary(crossings: list[Crossing]) -> str:
    """One sentence on the whole ledger, for the top of the panel."""
    if not crossings:
        return (
            "Nothing from this conversation has gone to a model other than its own, "
            "or to the cloud."
        )
    away = sorted({c.host or c.model for c in crossings if c.local is False})
    count = len(crossings)
    said = f"{count} crossing{'s' if count != 1 else ''}"
    if away:
        return f"{said}; data left this computer for {', '.join(away)}."
    if all(c.local for c in crossings):
        return f"{said}, all to models on this computer: nothing left it."
    return f"{said}."


# -- one item at a time ------------------------------------------------------------


def _from_notice(
    when: float, notice: Notice, known: Mapping[str, Endpoint], turn_pictures: list[str]
) -> Crossing | None:
    facts = notice.crossed
    if facts is not None:  # said as facts: nothing to read from the words
        return _crossing(
            when, facts.model, facts.host, facts.what, facts.why, known, notice.kind, facts.local
        )
    # Notices stored before crossings were facts, and notices that record none.
    if notice.kind == NoticeKind.DISCLOSURE:
        return _disclosure(when, notice, known)
    if notice.kind == NoticeKind.ROUTING:
        return _routing(when, notice, known)
    if notice.kind == NoticeKind.HEAL:
        return _heal(when, notice, known, turn_pictures)
    return None


def _disclosure(when: float, notice: Notice, known: Mapping[str, Endpoint]) -> Crossing:
    text, details = notice.text.strip(), notice.details.strip()
    looked = _LOOKED.match(text)
    if looked:
        reason = _WHY_PREFIX.sub("", details).rstrip(".")
        them = "it" if looked["what"].startswith("1 picture ") else "them"
        why = f"To describe {them} in words for {looked['target']}, which can't see"
        why += f"; {reason}" if reason else ""
        what = looked["what"]
        outcome = looked["rest"].lstrip(";,. ").rstrip(".")
        if outcome:
            what += f"; {outcome}"
        return _crossing(when, looked["model"], looked["host"], what, why, known, notice.kind)
    took = _TAKEOVER.match(text)
    if took:
        what = f"{took['count']} {took['noun']} of this turn"
        what += f" ({took['labels']})" if took["labels"] else ""
        why = details.rstrip(".") or "It took over the turn to see its pictures"
        local = _where_words(took["where"])
        return _crossing(
            when, took["model"], took["host"], what, why, known, notice.kind, local=local
        )
    # A wording this version doesn't know: still listed, with the notice's own words.
    anywhere = _ANY_MODEL_AT.search(text)
    model, host = (anywhere["model"], anywhere["host"]) if anywhere else ("", "")
    return _crossing(when, model, host, text, details, known, notice.kind)


def _routing(when: float, notice: Notice, known: Mapping[str, Endpoint]) -> Crossing | None:
    routed = _ROUTED.match(notice.text.strip())
    if routed is None:
        return None
    local = _where_words(routed["where"])
    if local is None:
        local = _known_local(routed["model"], known)
    if local is not False:
        return None  # a model on this computer: nothing left it
    why = f"Sightline chose it: {routed['reason']}"
    host = routed["host_first"] or routed["host"] or ""
    return _crossing(when, routed["model"], host, WHOLE_MESSAGE, why, known, notice.kind, local)


def _heal(
    when: float, notice: Notice, known: Mapping[str, Endpoint], turn_pictures: list[str]
) -> Crossing | None:
    healed = _HEALED.match(notice.text.strip())
    if healed is None:
        return None
    count = len(turn_pictures)
    what = (
        f"{count} picture{'s' if count != 1 else ''} of this turn ({', '.join(turn_pictures)})"
        if count
        else "This turn's pictures"
    )
    why = "It answers this chat and was sent the pictures; it refused them, so they went as words"
    return _crossing(when, healed["model"], "", what, why, known, notice.kind)


def _chosen_answer(
    when: float, message: Message, known: Mapping[str, Endpoint], told: set[str]
) -> Crossing | None:
    """An answer from a cloud model nobody had to announce: the person chose it."""
    if message.role != "assistant" or not message.model or message.model in told:
        return None
    endpoint = known.get(_provider_id(message.model))
    if endpoint is None or endpoint.local:
        return None
    return Crossing(
        when, message.model, endpoint.host, WHOLE_MESSAGE, "You chose this model", False, None
    )


def _crossing(
    when: float,
    model: str,
    host: str,
    what: str,
    why: str,
    known: Mapping[str, Endpoint],
    kind: NoticeKind,
    local: bool | None = None,
) -> Crossing:
    """A crossing, its host and place filled in from `known` when the notice left them out."""
    endpoint = known.get(_provider_id(model)) if model else None
    host = endpoint_name(host) if "://" in host else host  # older notices named the whole URL
    if not host and endpoint is not None:
        host = endpoint.host
    if local is None:
        if endpoint is not None and endpoint.host == host:
            local = endpoint.local  # the person's settings may call a LAN server local
        elif host:
            local = on_this_computer(host)
    return Crossing(when, model, host, what, why, local, kind)


def _where_words(where: str) -> bool | None:
    """`Choice.where()`'s words as locality."""
    if "this computer" in where:
        return True
    if "cloud" in where:
        return False
    return None


def _known_local(model: str, known: Mapping[str, Endpoint]) -> bool | None:
    endpoint = known.get(_provider_id(model))
    return endpoint.local if endpoint is not None else None


def _provider_id(model_ref: str) -> str:
    return ref_halves(model_ref)[0]


def _picture_labels(message: Message) -> list[str]:
    pictures = [*message.pictures, *(p for r in message.tool_results for p in r.pictures)]
    return [p.label or "a picture" for p in pictures]
