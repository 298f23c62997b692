"""A Codex turn through the real path: the fake app server as a process (app/turn/codex/)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from app.store import Store
from app.tools.read_file import ReadFile
from app.turn.agent_problems import AgentNeedsSignIn, AgentStopped
from app.turn.codex.engine import CodexEngine
from app.turn.events import TextAdded, ThoughtAdded
from app.turn.tool_step import AllowAll, Approval, ToolStep
from app.turn.turn_input import TurnInput
from routing.catalogue import Catalogue
from routing.models import ProviderConfig
from routing.transcript import MessageStatus, NoticeKind, ToolCall
from tests.app.turn.engine_helpers import (
    approved_turn,
    clean_turn,
    ended,
    engines_made,
    fake_program,
    first_turn,
    notices,
    per_answer,
    run_turn,
)
from tests.events import stopped_once
from vision.pictures import open_picture


def fake(
    tmp_path: Path, *behaviours: str, local: bool = False, model_provider: str = ""
) -> ProviderConfig:
    """The fake Codex app server with these behaviours, its threads kept in tmp_path."""
    env = (("FAKE_CODEX", ",".join(behaviours)), ("FAKE_CODEX_STATE", str(tmp_path / "state.json")))
    return fake_program(
        "codex", "tests.servers.codex_app_server", env, local=local, model_provider=model_provider
    )


# What the `engine_for` fixture gives: an engine for one Codex (with CodexEngine's
# options), closed after the test.
EngineFor = Callable[..., CodexEngine]


@pytest.fixture
async def engine_for(store: Store, tmp_path: Path) -> AsyncIterator[EngineFor]:
    async with engines_made(CodexEngine, store, tmp_path) as made:
        yield made


async def test_a_streamed_answer_with_reasoning_is_stored(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    _engine, chat, events = await clean_turn(engine_for, fake(tmp_path, "reason"), "hello", "codex")
    text = "".join(e.text for e in events if isinstance(e, TextAdded))
    assert text == "You said: hello (0 images)"
    assert [e.text for e in events if isinstance(e, ThoughtAdded)] == ["Thinking it over"]
    user, answer = store.messages(chat)
    assert (user.text, answer.text, answer.status) == ("hello", text, MessageStatus.COMPLETE)
    # Kept as an agent's thoughts are, so the window shows them collapsed alike.
    assert answer.carried("acp_thought", "codex")[0].data["text"] == "Thinking it over"
    assert answer.carried("codex", "codex")[0].data["thread"]


async def test_a_picture_reaches_it_and_its_crossing_is_disclosed(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    path = tmp_path / "red.png"
    Image.new("RGB", (8, 8), "red").save(path)
    engine = engine_for(fake(tmp_path))
    chat, events = await first_turn(engine, "what?", "codex", (open_picture(path),))
    assert ended(events).error is None
    _user, answer = store.messages(chat)
    assert answer.text == "You said: what? (1 images: data:image/png;base64)"
    [crossing] = notices(events)
    assert crossing.crossed is not None and "red.png" in crossing.text


async def test_pictures_for_codex_are_clamped_off_the_turns_thread(
    store: Store, tmp_path: Path, engine_for: EngineFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its question's picture and a picture its tool call returns: neither clamp holds the
    # thread the turn runs on (the window's).
    from app.turn.codex import asking
    from tests.pictures import watch_clamps

    made = watch_clamps(monkeypatch, asking)
    path = tmp_path / "wide.png"
    Image.new("RGB", (3000, 1000), "red").save(path)

    class PathReadFile(ReadFile):
        async def run(self, call: ToolCall) -> Any:
            return await super().run(ToolCall(call.id, call.name, {"path": str(path)}))

    engine = engine_for(
        fake(tmp_path, "tool"), tool_step=ToolStep(AllowAll()), tools=[PathReadFile(tmp_path)]
    )
    _chat, events = await first_turn(engine, "look", "codex", (open_picture(path),))
    assert ended(events).error is None
    assert len(made) == 2 and not any(on_main for _, on_main in made)


@per_answer("decision", "accept", "acceptForSession", "decline")
async def test_command_and_file_approvals_go_to_the_approver(
    store: Store, tmp_path: Path, engine_for: EngineFor, answer: Approval, decision: str
) -> None:
    approver, chat, events = await approved_turn(
        engine_for, fake(tmp_path, "command", "file"), answer, "codex"
    )
    names = [c.name for c in approver.asked]
    # "allow in this chat" holds for the rest of the chat: the second kind is asked still
    assert names == ["codex.command", "codex.file_change"]
    assert "touch made.txt" in approver.asked[0].arguments["command"]
    messages = store.messages(chat)
    assert f"Approval: {decision}." in messages[-1].text
    assert f"File approval: {decision}." in messages[-1].text
    results = [r for m in messages for r in m.tool_results]
    assert [r.name for r in results] == ["codex.command", "codex.file_change"]
    if answer == Approval.DENY:
        assert all(r.is_error for r in results)
        refused = [n.text for n in notices(events) if "not allowed" in n.text]
        assert refused == [
            "Codex asked to run `touch made.txt && echo made`, which was not allowed. (hint)",
            "Codex asked to change files, which was not allowed. (hint)",
        ]
    else:
        assert "made" in results[0].text and "hi there" in results[1].text


@per_answer(
    "granted",
    "Permissions: network, write; scope turn.",
    "Permissions: network, write; scope session.",
    "Permissions: none; scope turn.",
)
async def test_more_permissions_are_asked_and_granted_as_asked(
    store: Store, tmp_path: Path, engine_for: EngineFor, answer: Approval, granted: str
) -> None:
    approver, chat, events = await approved_turn(
        engine_for, fake(tmp_path, "permissions"), answer, "codex"
    )
    [asked] = approver.asked
    assert asked.name == "codex.permissions"
    assert asked.arguments == {
        "network": "on",
        "write": [str(tmp_path)],
        "reason": "Fetch the page and save it",
    }
    assert granted in store.messages(chat)[-1].text
    told = [n.text for n in notices(events) if "permissions" in n.text]
    if answer == Approval.DENY:
        assert told == [
            "Codex asked for more permissions (network, write), which were not allowed. (hint)"
        ]
    else:
        until = "the rest of this chat" if answer == Approval.CONVERSATION else "this turn"
        assert told == [f"Codex was given more permissions (network, write) for {until}."]


async def test_a_dynamic_tool_returns_a_picture(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    path = tmp_path / "blue.png"
    Image.new("RGB", (6, 4), "blue").save(path)
    size = path.stat().st_size

    class PathReadFile(ReadFile):
        async def run(self, call: ToolCall) -> Any:
            return await super().run(ToolCall(call.id, call.name, {"path": str(path)}))

    engine = engine_for(
        fake(tmp_path, "tool"), tool_step=ToolStep(AllowAll()), tools=[PathReadFile(tmp_path)]
    )
    chat, events = await first_turn(engine, "look", "codex")
    assert ended(events).error is None
    messages = store.messages(chat)
    [call] = [c for m in messages for c in m.tool_calls]
    assert call.name == "read_file"
    [result] = [r for m in messages for r in m.tool_results]
    assert len(result.pictures) == 1
    assert f"Tool gave 1 text, 1 images ({size} bytes)." in messages[-1].text
    assert any(n.kind == NoticeKind.DISCLOSURE and n.crossed for n in notices(events))


async def test_usage_becomes_the_answer_stats(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    _engine, chat, _events = await clean_turn(engine_for, fake(tmp_path, "usage"), "count", "codex")
    _user, answer = store.messages(chat)
    kept = answer.stats
    assert kept is not None
    assert (kept.input_tokens, kept.output_tokens) == (21, 9)
    assert (kept.context_used, kept.context_size) == (30, 258400)


async def test_a_crash_is_an_error_and_the_next_turn_starts_it_again(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    engine = engine_for(fake(tmp_path, "crash"))
    chat, events = await first_turn(engine, "one", "codex")
    assert isinstance(ended(events).error, AgentStopped)
    assert "exit status 1" in notices(events)[-1].text
    _user, answer = store.messages(chat)
    assert answer.status == MessageStatus.FAILED and answer.text == "You said"
    engine.agents = [fake(tmp_path)]
    again = await run_turn(engine, chat, "two", "codex")
    assert ended(again).error is None
    assert store.messages(chat)[-1].text == "You said: two (0 images)"


@pytest.mark.parametrize(
    ("behaviour", "error", "said"),
    [("malformed", AgentStopped, "not JSON"), ("signed-out", AgentNeedsSignIn, "codex login")],
)
async def test_a_turn_codex_cannot_answer_ends_cleanly_and_says_why(
    tmp_path: Path, engine_for: EngineFor, behaviour: str, error: type, said: str
) -> None:
    # A line that isn't JSON, and a Codex that isn't signed in: the notice names the cause.
    _chat, events = await first_turn(engine_for(fake(tmp_path, behaviour)), "hi", "codex")
    assert isinstance(ended(events).error, error)
    assert said in notices(events)[-1].text


async def test_stop_interrupts_the_turn_and_keeps_the_answer(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    engine = engine_for(fake(tmp_path, "hang"))
    chat = store.conversations.create()
    seen = asyncio.Event()

    async def turn() -> None:
        async for event in engine.run(TurnInput(chat, "go", requested_model="codex")):
            if isinstance(event, TextAdded):
                seen.set()

    await stopped_once(seen, turn())
    _user, answer = store.messages(chat)
    assert (answer.text, answer.status) == ("You said", MessageStatus.STOPPED)
    # The process was kept: its turn ended on interrupt, so the next turn goes on in it.
    [session] = engine._sessions.values()
    assert session.process.running


async def test_a_thread_is_resumed_by_another_engine(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    chat = store.conversations.create()
    first = engine_for(fake(tmp_path))
    await run_turn(first, chat, "one", "codex")
    await first.aclose()
    second = engine_for(fake(tmp_path))
    events = await run_turn(second, chat, "two", "codex")
    assert ended(events).error is None
    assert not [n for n in notices(events) if "doesn't remember" in n.text]
    threads = {m.carried("codex", "codex")[0].data["thread"] for m in store.messages(chat)[1::2]}
    assert len(threads) == 1
    (tmp_path / "state.json").write_text("[]", encoding="utf-8")  # the rollout is gone
    third = engine_for(fake(tmp_path))
    events = await run_turn(third, chat, "three", "codex")
    assert ended(events).error is None
    assert [n for n in notices(events) if "doesn't remember" in n.text]


async def test_a_hung_codex_is_stopped_after_the_idle_timeout(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    engine = engine_for(fake(tmp_path, "hang"), idle_timeout=0.5)
    chat, events = await first_turn(engine, "one", "codex")
    assert isinstance(ended(events).error, AgentStopped)
    assert "sent nothing for 0.5 s" in notices(events)[-1].text
    _user, answer = store.messages(chat)
    assert (answer.text, answer.status) == ("You said", MessageStatus.FAILED)
    assert not engine._sessions  # dropped: the next turn starts it again


@pytest.mark.parametrize("behaviours", [("command",), ("command", "late-interrupt")])
async def test_stop_while_an_approval_waits_answers_it_cancel_and_keeps_codex(
    store: Store, tmp_path: Path, engine_for: EngineFor, behaviours: tuple[str, ...]
) -> None:
    # With `late-interrupt` the `cancel` has ended the turn before the interrupt is read,
    # and Codex refuses it: the turn is over all the same, so the process is kept.
    class Never:
        async def approve(self, conversation_id: str, call: ToolCall, others: int = 0) -> Approval:
            asked.set()
            await asyncio.Event().wait()
            raise AssertionError("never answered")

    asked = asyncio.Event()
    # A long budget for the interrupt: a loaded machine's slow answer isn't what is tested.
    engine = engine_for(
        fake(tmp_path, *behaviours), tool_step=ToolStep(Never()), cancel_timeout=60.0
    )
    chat = store.conversations.create()

    await stopped_once(asked, run_turn(engine, chat, "go", "codex"))
    # Answered `cancel`, Codex ended its turn at once: its process is kept for the next turn.
    [session] = engine._sessions.values()
    assert session.process.running
    engine.tool_step.approver = AllowAll()
    events = await run_turn(engine, chat, "again", "codex")
    assert ended(events).error is None
    assert "Approval: accept." in store.messages(chat)[-1].text


async def test_pictures_are_described_for_a_blind_local_model_codex_runs(
    store: Store, tmp_path: Path, engine_for: EngineFor, catalogue: Catalogue
) -> None:
    # Codex runs Ollama's llama3.2:3b, which Sightline's Ollama listing says is blind: the
    # picture and the tool's picture become words, looked at by a seeing model here.
    path = tmp_path / "blue.png"
    Image.new("RGB", (6, 4), "blue").save(path)

    class PathReadFile(ReadFile):
        async def run(self, call: ToolCall) -> Any:
            return await super().run(ToolCall(call.id, call.name, {"path": str(path)}))

    engine = engine_for(
        fake(tmp_path, "tool", model_provider="ollama"),
        tool_step=ToolStep(AllowAll()),
        tools=[PathReadFile(tmp_path)],
        catalogue=catalogue,
    )
    chat = store.conversations.create()
    picture = open_picture(path)
    events = await run_turn(engine, chat, "look", "codex:llama3.2:3b", (picture,))
    assert ended(events).error is None
    answer = store.messages(chat)[-1].text
    assert "(0 images" in answer  # no picture went to the blind model
    assert "Tool gave 1 text, 0 images" in answer
    told = [n for n in notices(events) if n.crossed is not None]
    assert told and all(n.crossed.local for n in told if n.crossed)  # looked at here
    assert not any("went to Codex" in n.text for n in notices(events))


async def test_the_models_offered_are_codexs_own_or_its_model_providers(
    store: Store, tmp_path: Path, engine_for: EngineFor, catalogue: Catalogue
) -> None:
    own = engine_for(fake(tmp_path))
    chat = store.conversations.create()
    assert ended(await run_turn(own, chat, "hi", "codex")).error is None
    assert own.offered["codex"].models == ("gpt-5-mini",)  # Codex's model/list
    ollama = engine_for(fake(tmp_path, model_provider="ollama"), catalogue=catalogue)
    other = store.conversations.create()
    assert ended(await run_turn(ollama, other, "hi", "codex")).error is None
    # Codex lists only its own models: a model provider's come from Sightline's listing.
    assert ollama.offered["codex"].models == (
        "llama3.2:3b",
        "llava:7b",
        "qwen2.5vl:3b",
        "gemma3:270m",
    )
