"""The sight policy: who looks at a picture for a model that can't see it, what that model
gets instead, and what the chat is told about it.

One home for every engine: the model-API turn (`TurnSight`, app/turn/sight.py, for the
runner), both agent engines (an ACP agent's prompt, Codex's inputs and its tools'
results) and the door (its results, through `DoorSight`, which the turn hands it: the
tools never import the turn).

- Who looks: the chat's configured vision model, else a seeing model that may be asked
  (routing/router.py `choose_looker`); for a chat on this computer no model off it, not
  even for a listing; never a provider this turn found unreachable. A provider nobody
  listed yet this session is listed first.
- The words: routing/describing/ describes the pictures (within the turn's budget).
- What is told: every picture handed to a looker, described or not (a disclosure); the
  pictures nobody may look at ("nobody sees"); those the budget left undescribed; and
  pictures that go to an agent itself, when its model runs off this computer. Each is
  told once a turn. Every notice of a crossing is made by routing/crossing_notices.py.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from routing.catalogue import Catalogue
from routing.crossing_notices import (
    agent_crossing,
    looker_disclosure,
    picture_labels,
    reused_notice,
)
from routing.describing.describer import Describer
from routing.describing.framing import TURN_BUDGET, TurnBudget
from routing.models import ModelInfo, SightFrom
from routing.router import Choice, RoutingPrefs, choose_looker
from routing.transcript import Message, Notice, NoticeKind, ToolResult
from routing.wires.base import Usage
from vision.pictures import Picture


@dataclass(frozen=True)
class Worded:
    """Messages with their pictures in words, what to tell, and what describing cost."""

    messages: tuple[Message, ...]
    notices: tuple[Notice, ...] = ()
    usage: Usage | None = None
    looked_away: frozenset[str] = frozenset()  # pictures a looker off this computer was sent


@dataclass
class Told:
    """What one turn has told already, so each picture is told about once."""

    nobody: set[str] = field(default_factory=set)  # pictures no model may look at
    over_budget: set[str] = field(default_factory=set)  # pictures the budget left out
    reused: set[str] = field(default_factory=set)  # in words a looker gave: told, or said now


def blind_engine(engine_id: str, model: str, *, local: bool) -> ModelInfo:
    """The model behind an engine, as the looker rules see it: blind, local as configured."""
    return ModelInfo(
        engine_id, model or "default", sees=False, local=local, sight_from=SightFrom.LISTING
    )


@dataclass(frozen=True)
class AgentSight:
    """An agent as the policy sees it: whether it takes pictures, and how it is named."""

    model: ModelInfo  # its model for the looker rules (blind_engine): where it runs
    sees: bool  # it takes pictures as pictures
    named: str  # as a sentence names it: "the agent x", "Codex (x)"
    host: str  # where its crossings go: "agent x", "codex x"
    ref: str  # the model a crossing names


def agent_sight(
    agent_id: str, *, local: bool, sees: bool, model: str = "", ref: str = "", kind: str = "acp"
) -> AgentSight:
    """An agent (`kind` "acp" or "codex") as the policy sees it: in the chat's `ref`, or
    the agent alone (the door's crossings name the agent)."""
    named, host = (
        (f"Codex ({agent_id})", f"codex {agent_id}")
        if kind == "codex"
        else (f"the agent {agent_id}", f"agent {agent_id}")
    )
    return AgentSight(
        blind_engine(agent_id, model, local=local), sees, named, host, ref or agent_id
    )


@dataclass
class SightPolicy:
    """Who looks at pictures, and what is told, for one engine's turns."""

    catalogue: Catalogue | None
    prefs: RoutingPrefs
    describer: Describer = field(default_factory=Describer)  # its descriptions are kept
    budget_cap: int = TURN_BUDGET  # pictures described in one turn, all kinds together

    async def looker(
        self, model: ModelInfo, *, local: bool, unreachable: Collection[str] = ()
    ) -> Choice | None:
        """Who looks at pictures for `model` (in a chat on this computer when `local`)."""
        catalogue = self.catalogue
        if catalogue is None:
            return None
        listed = {s.provider.id for s in catalogue.statuses()}
        missing = [
            p.id
            for p in catalogue.providers
            if p.id not in listed and p.id not in unreachable and (p.is_local or not local)
        ]
        # Who looks may be of a provider nobody listed yet this session; a local chat
        # never asks a provider off this computer, not even for its list of models.
        if missing:
            await catalogue.refresh(missing)
        seeing = [
            m
            for m in catalogue.models()
            if catalogue.answer(m).gets_pictures and m.provider_id not in unreachable
        ]
        return choose_looker(seeing, model, configured=self.prefs.vision_model, local_chat=local)

    async def words(
        self,
        messages: tuple[Message, ...],
        model: ModelInfo,
        *,
        local: bool,
        turn_from: int = 0,
        budget: TurnBudget | None = None,
        told: Told | None = None,
        unreachable: Collection[str] = (),
    ) -> Worded:
        """`messages` with the pictures from `turn_from` on described for `model` (earlier
        ones a line), who looked told, and what nobody (or the budget) let be described."""
        budget = budget or TurnBudget(cap=self.budget_cap)
        told = told or Told()
        choice = await self.looker(model, local=local, unreachable=unreachable)
        from routing.describing.looker import WireLooker  # with a turn's first pictures
        from routing.describing.request import in_words

        looker = WireLooker(self.catalogue, choice.model) if choice and self.catalogue else None
        result = await in_words(
            messages, turn_from=turn_from, describer=self.describer, looker=looker, budget=budget
        )
        notices: list[Notice] = []
        if looker is not None and choice is not None and result.asked:
            # Every picture handed to the looker is disclosed, described or not: it left.
            failed = len(result.asked) - len(result.fresh)
            notices.append(
                looker_disclosure(
                    looker, model, result.asked, result.pages, choice.reason, failed=failed
                )
            )
        if looker is None:
            unseen = [
                p
                for m in messages[turn_from:]
                for p in (*m.pictures, *(p for r in m.tool_results for p in r.pictures))
                if p.sha256 not in told.nobody
            ]
            if unseen:
                told.nobody.update(p.sha256 for p in unseen)
                notices.append(nobody_sees_notice(unseen, model, local=local))
        # Words a looker gave earlier in this turn were told as it gave them.
        told.reused.update(p.sha256 for p in result.asked)
        again = [(p, d) for p, d in result.reused if p.sha256 not in told.reused]
        if again:
            told.reused.update(p.sha256 for p, _ in again)
            notices.append(reused_notice(again, model))
        untold = [p for p in result.past_budget if p.sha256 not in told.over_budget]
        if untold:
            told.over_budget.update(p.sha256 for p in untold)
            notices.append(budget_notice(untold, budget.cap, model))
        usage = None
        if result.input_tokens or result.output_tokens:
            usage = Usage(result.input_tokens, result.output_tokens)
        away = frozenset(p.sha256 for p in result.asked if looker is not None and not looker.local)
        return Worded(result.messages, tuple(notices), usage, away)

    def to_agent(
        self,
        agent: AgentSight,
        pictures: Sequence[Picture],
        *,
        why: str,
        tool: str = "",
        even_here: bool = False,
    ) -> Notice | None:
        """The crossing of pictures that go to the agent itself: told when its model runs
        off this computer (`even_here`: on it too, as the door tells every picture it
        hands an agent)."""
        if not pictures or (agent.model.local and not even_here):
            return None
        return agent_crossing(
            pictures,
            agent=agent.named,
            host=agent.host,
            model=agent.ref,
            local=agent.model.local,
            why=why,
            tool=tool,
        )


class DoorSight:
    """A door result's pictures for one agent: as pictures to an agent that takes them
    (each crossing told), else in words; one budget for the door's whole run, so an agent
    calling in a loop can't have pictures described without end."""

    def __init__(
        self, policy: SightPolicy, agent: AgentSight, tell: Callable[[Notice], None]
    ) -> None:
        self.policy = policy  # read at each call: the window may change who can look
        self.agent = agent
        self.tell = tell
        self.budget = TurnBudget(cap=policy.budget_cap)

    async def __call__(self, result: ToolResult, tool: str) -> tuple[ToolResult, bool]:
        """`result` as the agent gets it, and whether its pictures go as pictures."""
        agent = self.agent
        if agent.sees:
            why = f"The agent called {tool} through Sightline's door, as you allowed"
            notice = self.policy.to_agent(
                agent, list(result.pictures), why=why, tool=tool, even_here=True
            )
            if notice is not None:
                self.tell(notice)
            return result, True
        worded = await self.policy.words(
            (Message(role="tool", parts=(result,)),),
            agent.model,
            local=agent.model.local,
            budget=self.budget,
        )
        for notice in worded.notices:
            self.tell(notice)
        parts = worded.messages[0].parts
        return next((p for p in parts if isinstance(p, ToolResult)), result), False


def nobody_sees_notice(pictures: list[Picture], model: ModelInfo, *, local: bool) -> Notice:
    """No model that sees may look at this turn's pictures: they were only noted for it."""
    count = len(pictures)
    where = "on this computer " if local else ""
    return Notice(
        NoticeKind.NOBODY_SEES,
        f"No model {where}can see {picture_labels(pictures)}, so {model.ref} was only told "
        f"{'they are' if count != 1 else 'it is'} there. A model that sees, downloaded to this "
        "computer, can describe pictures without them leaving it.",
        details="Get a model that sees (a few GB, once), then press Retry.",
    )


def budget_notice(pictures: list[Picture], cap: int, model: ModelInfo) -> Notice:
    """Which pictures stayed undescribed because the turn's cap was reached."""
    count = len(pictures)
    return Notice(
        NoticeKind.BUDGET,
        f"{count} picture{'s were' if count != 1 else ' was'} not described for {model.ref} "
        f"({picture_labels(pictures)}): a turn describes at most {cap} pictures. Ask about "
        f"{'them' if count != 1 else 'it'} in a new message, or pick a model that sees.",
    )
