"""The one sight policy (app/turn/sight_policy.py), as the agents and the door use it: who
looks for an engine's blind model, what is told, and when a crossing to an agent is told."""

from __future__ import annotations

from app.turn.sight_policy import DoorSight, SightPolicy, agent_sight
from routing.catalogue import Catalogue
from routing.router import RoutingPrefs
from routing.transcript import Notice, NoticeKind, PicturePart, TextPart, ToolResult, user_message
from tests.pictures import named_picture
from tests.servers.ollama import FakeOllama


async def test_a_blind_agent_on_this_computer_gets_words_from_a_looker_here(
    catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    policy = SightPolicy(catalogue, RoutingPrefs())
    agent = agent_sight("fake", local=True, sees=False)
    worded = await policy.words(
        (user_message("what?", (named_picture("a.png"),)),), agent.model, local=True
    )
    assert "[Description of" in worded.messages[0].text
    [disclosure] = worded.notices
    assert disclosure.kind == NoticeKind.DISCLOSURE and disclosure.crossed is not None
    assert disclosure.crossed.local and worded.looked_away == frozenset()
    assert len(fake_ollama.chat_requests()) == 1


async def test_pictures_past_the_budget_are_told_for_an_agent_too(
    catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    policy = SightPolicy(catalogue, RoutingPrefs(), budget_cap=1)
    agent = agent_sight("fake", local=True, sees=False)
    asked = user_message(
        "compare", (named_picture("a.png", "red"), named_picture("b.png", "green"))
    )
    worded = await policy.words((asked,), agent.model, local=True)
    assert [n.kind for n in worded.notices] == [NoticeKind.DISCLOSURE, NoticeKind.BUDGET]
    assert "(b.png)" in worded.notices[1].text
    assert len(fake_ollama.chat_requests()) == 1


async def test_without_a_catalogue_nobody_looks_and_the_chat_is_told() -> None:
    policy = SightPolicy(None, RoutingPrefs())
    agent = agent_sight("fake", local=False, sees=False)
    worded = await policy.words(
        (user_message("what?", (named_picture("a.png"),)),), agent.model, local=False
    )
    [nobody] = worded.notices
    assert nobody.kind == NoticeKind.NOBODY_SEES and "a.png" in nobody.text


def test_a_crossing_to_an_agent_is_told_only_off_this_computer_unless_asked() -> None:
    policy = SightPolicy(None, RoutingPrefs())
    pictures = [named_picture("a.png")]
    here = agent_sight("fake", local=True, sees=True, ref="fake:big")
    assert policy.to_agent(here, pictures, why="you sent them") is None
    told = policy.to_agent(here, pictures, why="a tool", tool="screenshot", even_here=True)
    assert told is not None and told.kind == NoticeKind.DISCLOSURE
    assert told.text == (
        "1 picture (a.png) went to the agent fake, on this computer, through Sightline's "
        "screenshot."
    )
    away = agent_sight("codex", local=False, sees=True, ref="codex:gpt", kind="codex")
    sent = policy.to_agent(away, pictures, why="you sent them")
    assert sent is not None and sent.kind == NoticeKind.INFO and sent.crossed is not None
    assert (
        sent.text == "1 picture (a.png) went to Codex (codex), whose model runs off this computer."
    )
    assert (sent.crossed.model, sent.crossed.host, sent.crossed.local) == (
        "codex:gpt",
        "codex codex",
        False,
    )


async def test_the_door_gives_a_seeing_agent_its_pictures_and_tells_each_crossing() -> None:
    told: list[Notice] = []
    door = DoorSight(
        SightPolicy(None, RoutingPrefs()), agent_sight("fake", local=True, sees=True), told.append
    )
    result = ToolResult(
        "1", "screenshot", (TextPart("the screen"), PicturePart(named_picture("s.png")))
    )
    given, with_pictures = await door(result, "screenshot")
    assert given is result and with_pictures
    [crossing] = told
    assert crossing.crossed is not None and crossing.crossed.model == "fake"
