"""The data-boundary ledger, built from notices as the turn loop really words them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from app.ledger import Crossing, Endpoint, endpoints_of, ledger, summary
from app.store import Store
from app.turn.choosing import routing_notice
from app.turn.sight import TurnSight
from routing.catalogue import Catalogue
from routing.crossing_notices import looker_disclosure
from routing.describing.describer import Describer
from routing.describing.looker import WireLooker
from routing.models import ModelInfo, ProviderConfig
from routing.router import Choice, RoutingPrefs
from routing.transcript import WHOLE_MESSAGE, Message, Notice, NoticeKind, TextPart, user_message
from tests.pictures import make_picture

OLLAMA = ProviderConfig("ollama", "ollama", "http://127.0.0.1:11434")
OPENAI = ProviderConfig("openai", "openai", "https://api.openai.com/v1")
LLAMA = ModelInfo("ollama", "llama3.2:3b", sees=False, local=True)
QWEN = ModelInfo("ollama", "qwen2.5vl:3b", sees=True, local=True)
GPT = ModelInfo("openai", "gpt-4o-mini", sees=True, local=False)
ENDPOINTS = {
    "ollama": Endpoint("127.0.0.1:11434", True),
    "openai": Endpoint("api.openai.com", False),
}


@pytest.fixture
def sight() -> TurnSight:
    catalogue = Catalogue([OLLAMA, OPENAI])
    return TurnSight(catalogue, Describer(), RoutingPrefs(), chat_is_local=False)


def disclosed(store: Store, chat: str, text: str, details: str = "") -> None:
    """A disclosure notice in these words, as an earlier version may have written it."""
    store.add_notice(chat, Notice(NoticeKind.DISCLOSURE, text, details=details))


def test_a_looker_disclosure_names_model_host_pictures_and_why(
    store: Store, sight: TurnSight
) -> None:
    chat = store.conversations.create()
    pictures = [
        make_picture("red", label="cat.png"),
        make_picture("blue", label="report.pdf, page 2"),
    ]
    store.add_message(chat, user_message("What is this?", tuple(pictures)))
    looker = SimpleNamespace(label=GPT.ref, host="api.openai.com", local=False)
    notice = looker_disclosure(looker, LLAMA, pictures, [], "it is the vision model", failed=0)  # type: ignore[arg-type]
    store.add_notice(chat, notice)
    [crossing] = ledger(store.items(chat))
    assert crossing.model == "openai:gpt-4o-mini"
    assert crossing.host == "api.openai.com"
    assert crossing.what == "2 pictures (cat.png, report.pdf, page 2)"
    assert "llama3.2:3b" in crossing.why and "it is the vision model" in crossing.why
    assert crossing.kind == NoticeKind.DISCLOSURE
    assert crossing.local is False  # api.openai.com is not this computer
    assert ledger(store.items(chat), ENDPOINTS)[0].local is False
    assert crossing.when == store.items(chat)[1].created_at


def test_the_ledger_lists_a_notices_facts_whatever_its_words_say(store: Store) -> None:
    chat = store.conversations.create()
    # The disclosure reads only a looker's label, host and whether it is local.
    looker = cast(WireLooker, SimpleNamespace(label=QWEN.ref, host="127.0.0.1:11434", local=True))
    notice = looker_disclosure(
        looker, LLAMA, [make_picture("red", label="a.png")], [], "it sees", failed=0
    )
    reworded = replace(notice, text="Wording from a later version that no pattern knows.")
    store.add_notice(chat, reworded)
    [crossing] = ledger(store.items(chat))
    assert (crossing.model, crossing.host, crossing.what, crossing.local) == (
        QWEN.ref,
        "127.0.0.1:11434",
        "1 picture (a.png)",
        True,
    )
    assert crossing.why.startswith("To describe it in words")  # one picture: "it"


def test_a_failed_description_still_crossed(store: Store) -> None:
    chat = store.conversations.create()
    sent = [make_picture("red", label="a.png"), make_picture("green", label="b.png")]
    looker = SimpleNamespace(label=QWEN.ref, host="127.0.0.1:11434", local=True)
    notice = looker_disclosure(looker, LLAMA, sent, [], "it sees", failed=2)  # type: ignore[arg-type]
    store.add_notice(chat, notice)
    [crossing] = ledger(store.items(chat))
    assert crossing.model == QWEN.ref and crossing.host == "127.0.0.1:11434"
    assert crossing.what.startswith("2 pictures (a.png, b.png)")
    assert "none of them could be described" in crossing.what
    assert crossing.local is True  # a loopback host is this computer


def test_a_disclosure_in_old_words_is_still_read(store: Store) -> None:
    chat = store.conversations.create()
    disclosed(
        store,
        chat,
        f"{QWEN.ref} at 127.0.0.1:11434 was sent 2 pictures (a.png, b.png) to describe for "
        f"{LLAMA.ref}, which can't see; none of them could be described.",
    )
    [crossing] = ledger(store.items(chat))
    assert crossing.what == "2 pictures (a.png, b.png); none of them could be described"
    assert crossing.local is True


def test_a_takeover_disclosure_and_its_routing_notice(
    store: Store, sight: TurnSight, tmp_path: Path
) -> None:
    chat = store.conversations.create()
    store.add_message(chat, user_message("Look", (make_picture("red", label="shot.png"),)))
    choice = Choice(GPT, "llama can't see this turn's pictures; gpt sees them", True)
    store.add_notice(chat, routing_notice(Catalogue([OLLAMA, OPENAI]), choice, "now answers"))
    store.add_notice(chat, sight.takeover_disclosure(choice, store.messages(chat)))
    store.add_message(chat, Message("assistant", (TextPart("A red square."),), model=GPT.ref))

    routed, took = ledger(store.items(chat), ENDPOINTS)
    assert (routed.model, routed.host, routed.what, routed.local) == (
        GPT.ref,
        "api.openai.com",
        WHOLE_MESSAGE,
        False,
    )
    assert routed.why.startswith("Sightline chose it: llama can't see")
    assert (took.model, took.host, took.local) == (GPT.ref, "api.openai.com", False)
    assert took.what == "1 picture of this turn (shot.png)"
    # The answer that follows is the same crossing, not another one.
    assert len(ledger(store.items(chat), ENDPOINTS)) == 2


def test_routing_to_this_computer_is_not_a_crossing(store: Store) -> None:
    chat = store.conversations.create()
    store.add_message(chat, user_message("Hi"))
    notice = routing_notice(Catalogue([OLLAMA]), Choice(LLAMA, "it runs on this computer", True))
    store.add_notice(chat, notice)
    store.add_message(chat, Message("assistant", (TextPart("Hello"),), model=LLAMA.ref))
    assert ledger(store.items(chat), ENDPOINTS) == []
    assert "Nothing" in summary([])


def test_a_heal_names_the_turns_pictures(store: Store, sight: TurnSight) -> None:
    chat = store.conversations.create()
    store.add_message(chat, user_message("Old turn", (make_picture("blue", label="old.png"),)))
    store.add_message(chat, user_message("New turn", (make_picture("red", label="new.png"),)))
    store.add_notice(chat, sight.heal(GPT, store.messages(chat)))
    [crossing] = ledger(store.items(chat), ENDPOINTS)
    assert crossing.kind == NoticeKind.HEAL
    assert crossing.model == GPT.ref and crossing.host == "api.openai.com"
    assert crossing.what == "1 picture of this turn (new.png)"
    assert "refused" in crossing.why


def test_a_cloud_model_the_person_chose_is_listed_once_per_turn(store: Store) -> None:
    chat = store.conversations.create(model=GPT.ref)
    for words in ("one", "two"):
        store.add_message(chat, user_message(words))
        store.add_message(chat, Message("assistant", (TextPart("..."),), model=GPT.ref))
        store.add_message(chat, Message("assistant", (TextPart("more"),), model=GPT.ref))
    crossings = ledger(store.items(chat), ENDPOINTS)
    assert [(c.model, c.why, c.what) for c in crossings] == [
        (GPT.ref, "You chose this model", WHOLE_MESSAGE),
        (GPT.ref, "You chose this model", WHOLE_MESSAGE),
    ]
    # Without knowing where providers run, only what the notices say is listed.
    assert ledger(store.items(chat)) == []
    assert summary(crossings) == "2 crossings; data left this computer for api.openai.com."


def test_older_and_unknown_wordings_are_still_listed(store: Store) -> None:
    chat = store.conversations.create()
    disclosed(
        store,
        chat,
        "This turn's 3 pictures now go to openai:gpt-4o at https://api.openai.com/v1 "
        "(in the cloud).",
        details="reason",
    )
    disclosed(
        store,
        chat,
        "Pages 3-4 of report.pdf went to mistral:pixtral at api.mistral.ai for reading.",
    )
    store.add_notice(chat, Notice(NoticeKind.ERROR, "boom"))
    old, unknown = ledger(store.items(chat))
    assert (old.model, old.host, old.what, old.local) == (
        "openai:gpt-4o",
        "api.openai.com",
        "3 pictures of this turn",
        False,
    )
    assert (unknown.model, unknown.host) == ("mistral:pixtral", "api.mistral.ai")
    assert unknown.what.startswith("Pages 3-4 of report.pdf")


def test_endpoints_and_hosts() -> None:
    assert endpoints_of([("o", "http://user:pw@10.0.0.2:8080/v1", False)]) == {
        "o": Endpoint("10.0.0.2:8080", False)
    }
    assert Crossing(0, "m:x", "", "w", "y").where == "host not recorded"
    assert Crossing(0, "m:x", "h", "w", "y", local=True).where == "h (on this computer)"
    assert Crossing(0, "m:x", "h", "w", "y", local=False).where == "h (off this computer)"


def test_a_routing_notice_without_facts_is_read_in_either_wording(store: Store) -> None:
    chat = store.conversations.create()
    for text in (
        f"{GPT.ref} answers at api.openai.com (in the cloud): it sees.",
        f"{GPT.ref} now answers (in the cloud) at api.openai.com: it sees.",
    ):
        store.add_notice(chat, Notice(NoticeKind.ROUTING, text))
    crossings = ledger(store.items(chat))
    assert [(c.model, c.host, c.local) for c in crossings] == [
        (GPT.ref, "api.openai.com", False)
    ] * 2
