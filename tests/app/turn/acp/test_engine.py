"""An agent's turn through the real path: the fake ACP agent as a process (app/turn/acp/)."""

from __future__ import annotations

import asyncio
import gc
import sys
import threading
from contextlib import aclosing
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from app.store import Store
from app.turn.agent_problems import AgentNeedsSignIn, AgentNotInstalled, AgentStopped
from app.turn.events import PlanUpdated, TextAdded, ThoughtAdded
from app.turn.tool_step import AllowAll, Approval, ToolStep
from app.turn.turn_input import TurnInput
from routing.models import ProviderConfig
from routing.transcript import Message, MessageStatus, NoticeKind, ToolCall
from tests.app.turn.acp.helpers import EngineFor, fake
from tests.app.turn.engine_helpers import (
    approved_turn,
    clean_turn,
    ended,
    first_turn,
    notices,
    per_answer,
    run_turn,
)
from tests.events import stopped_once
from tests.servers.acp_agent import logged, read_log
from vision.pictures import Picture, open_picture


async def test_a_streamed_answer_with_thoughts_and_a_plan_is_stored(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    _engine, chat, events = await clean_turn(
        engine_for, fake(tmp_path, "think", "plan"), "hello", "fake"
    )
    text = "".join(e.text for e in events if isinstance(e, TextAdded))
    assert text == "Part one. You said: hello (0 pictures)"
    assert [e.text for e in events if isinstance(e, ThoughtAdded)] == ["Let me think."]
    [plan] = [e for e in events if isinstance(e, PlanUpdated)]
    assert [(p.content, p.status) for p in plan.entries] == [
        ("Look", "completed"),
        ("Answer", "pending"),
    ]
    user, answer = store.messages(chat)
    assert (user.text, answer.text, answer.status) == ("hello", text, MessageStatus.COMPLETE)
    assert answer.carried("acp_thought", "fake")[0].data["text"] == "Let me think."
    [init, new, prompt] = read_log(tmp_path)
    assert init["initialize"] == 1 and "sightline" in init["client"]
    assert new["new_session"] == str(tmp_path)
    assert prompt["prompt"] == "hello"


async def test_a_tool_call_with_a_picture_becomes_a_tool_row(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    _engine, chat, _events = await clean_turn(engine_for, fake(tmp_path, "tool"), "look", "fake")
    _user, calling, tool, final = store.messages(chat)
    [call] = calling.tool_calls
    assert (call.id, call.name, dict(call.arguments)) == ("t-1", "Screenshot", {"where": "screen"})
    [result] = tool.tool_results
    assert result.text == "Here it is." and not result.is_error
    [picture] = result.pictures
    assert (picture.width, picture.height, picture.mime) == (4, 3, "image/png")
    assert final.text == "You said: look (0 pictures)"


async def test_a_large_picture_from_a_tool_is_opened_off_the_turns_thread(
    store: Store, tmp_path: Path, engine_for: EngineFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Opening a picture safely decodes it whole (a 4K screenshot: ~60 ms), and the turn
    # runs on the window's thread.
    from app.turn.acp import content
    from vision.pictures import sniff

    opened: list[bool] = []

    def watched(data: bytes, label: str = "") -> Picture:
        opened.append(threading.current_thread() is threading.main_thread())
        return sniff(data, label)

    monkeypatch.setattr(content, "sniff", watched)
    engine = engine_for(fake(tmp_path, "tool", "big"))
    chat, events = await first_turn(engine, "look", "fake")
    assert ended(events).error is None
    [result] = [r for m in store.messages(chat) for r in m.tool_results]
    [picture] = result.pictures
    assert (picture.width, picture.height) == (400, 300)
    assert opened == [False]  # once, on a worker thread


async def test_pictures_go_as_images_to_an_agent_that_takes_them(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    path = tmp_path / "red.png"
    Image.new("RGB", (8, 8), "red").save(path)
    engine = engine_for(fake(tmp_path, "sees"))
    _chat, events = await first_turn(engine, "what?", "fake", (open_picture(path),))
    assert ended(events).error is None
    assert read_log(tmp_path)[-1]["pictures"] == ["image/png"]
    # Its model runs off this computer: the crossing is disclosed, for the ledger too.
    [crossing] = notices(events)
    assert crossing.crossed is not None and "red.png" in crossing.text


async def test_pictures_for_an_agent_are_clamped_off_the_turns_thread(
    store: Store, tmp_path: Path, engine_for: EngineFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The turn runs on the window's thread; a 4K screenshot's clamp takes ~90 ms.
    from app.turn.acp import content
    from tests.pictures import watch_clamps

    made = watch_clamps(monkeypatch, content)
    path = tmp_path / "wide.png"
    Image.new("RGB", (3000, 1000), "red").save(path)
    engine = engine_for(fake(tmp_path, "sees"))
    _chat, events = await first_turn(engine, "what?", "fake", (open_picture(path),))
    assert ended(events).error is None
    assert read_log(tmp_path)[-1]["pictures"] == ["image/png"]
    assert made and not any(on_main for _, on_main in made)


async def test_pictures_become_words_for_an_agent_that_does_not_take_them(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    path = tmp_path / "red.png"
    Image.new("RGB", (8, 8), "red").save(path)
    engine = engine_for(fake(tmp_path, local=True))
    _chat, events = await first_turn(engine, "what?", "fake", (open_picture(path),))
    assert ended(events).error is None
    asked = read_log(tmp_path)[-1]
    assert asked["pictures"] == []  # no image block: the agent did not say it takes them
    assert "red.png" in asked["prompt"]  # Sightline's words stand in for the picture
    [nobody] = notices(events)
    assert nobody.kind == NoticeKind.NOBODY_SEES and "on this computer" in nobody.text


@per_answer("chosen", "yes", "always", "no")
async def test_a_permission_request_goes_to_the_approver(
    store: Store, tmp_path: Path, engine_for: EngineFor, answer: Approval, chosen: str
) -> None:
    approver, _chat, events = await approved_turn(
        engine_for, fake(tmp_path, "permission"), answer, "fake"
    )
    [call] = approver.asked
    assert call.name == "fake.read" and call.arguments["title"] == "Read notes.txt"
    assert {"permission": chosen} in read_log(tmp_path)
    refused = [n.text for n in notices(events) if "not allowed" in n.text]
    assert refused == (
        ["The agent fake asked to Read notes.txt, which was not allowed. (hint)"]
        if answer == Approval.DENY
        else []
    )


async def test_stop_sends_cancel_and_answers_the_permission_cancelled(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    asked = asyncio.Event()

    class Never:
        async def approve(self, conversation_id: str, call: ToolCall, others: int = 0) -> Approval:
            asked.set()
            await asyncio.Event().wait()
            raise AssertionError("never answered")

    engine = engine_for(fake(tmp_path, "permission"), tool_step=ToolStep(Never()))
    chat = store.conversations.create()

    await stopped_once(
        asked, run_turn(engine, chat, "go", "fake")
    )  # the permission request waits for the person
    log = await logged(tmp_path, {"cancel": "s-1"})
    assert {"cancel": "s-1"} in log and {"permission": "cancelled"} in log
    _user, answer = store.messages(chat)
    assert (answer.text, answer.status) == ("Part one. ", MessageStatus.STOPPED)


@pytest.mark.parametrize(
    ("behaviour", "words"),
    [
        ("crash", "stopped mid-turn (exit status 3)"),
        ("garbage", "sent a line that is not JSON"),
        ("hang", "sent nothing for 1 s"),
    ],
)
async def test_a_broken_agent_ends_the_turn_cleanly_and_starts_again(
    store: Store, tmp_path: Path, engine_for: EngineFor, behaviour: str, words: str
) -> None:
    agent = fake(tmp_path, behaviour)
    engine = engine_for(agent, idle_timeout=1.0)
    chat, events = await first_turn(engine, "one", "fake")
    error = ended(events).error
    assert isinstance(error, AgentStopped) and words in error.message
    assert "next message starts it again" in error.message
    _user, answer = store.messages(chat)
    assert (answer.text, answer.status) == ("Part one. ", MessageStatus.FAILED)  # kept
    # The next turn starts the agent again; a fresh session says it forgot the chat.
    healthy = fake(tmp_path)
    engine.agents = [healthy]
    again = await run_turn(engine, chat, "two", "fake")
    assert ended(again).error is None
    assert any("doesn't remember" in n.text for n in notices(again))
    assert [m.text for m in store.messages(chat)][-1] == "Part one. You said: two (0 pictures)"


async def test_a_chat_continues_its_session_with_load(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    agent = fake(tmp_path, "load")
    chat = store.conversations.create()
    first = engine_for(agent)
    assert ended(await run_turn(first, chat, "one", "fake")).error is None
    await first.aclose()
    second = engine_for(agent)  # as after reopening Sightline
    events = await run_turn(second, chat, "two", "fake")
    assert ended(events).error is None
    assert {"load_session": "s-1"} in read_log(tmp_path)
    assert not any("doesn't remember" in n.text for n in notices(events))
    assert "(replayed)" not in "".join(m.text for m in store.messages(chat))


async def test_agent_model_is_set_through_its_config_option(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    engine = engine_for(fake(tmp_path, "models"))
    chat = store.conversations.create()
    assert ended(await run_turn(engine, chat, "hi", "fake:large")).error is None
    assert read_log(tmp_path)[-1]["model"] == "large"
    events = await run_turn(engine, chat, "hi", "fake:huge")
    error = ended(events).error
    assert error is not None and "offers: small, large" in error.message


async def test_sign_in_names_the_command(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    agent = fake(tmp_path, "auth")
    engine = engine_for(agent)
    chat = store.conversations.create()
    error = ended(await run_turn(engine, chat, "hi", "fake")).error
    assert isinstance(error, AgentNeedsSignIn)
    assert f"`{sys.executable} login`" in error.message


async def test_a_command_not_installed_says_how_agents_are_installed(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    agent = ProviderConfig("ghost", "acp", "", command="no-such-agent-here")
    engine = engine_for(agent)
    chat, events = await first_turn(engine, "hi", "ghost")
    error = ended(events).error
    assert isinstance(error, AgentNotInstalled)
    assert "'no-such-agent-here' is not installed" in error.message
    assert "npm install -g opencode-ai" in error.message
    [user] = store.messages(chat)  # the person's words stay
    assert user.text == "hi"


async def test_allow_all_allows_headless(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    engine = engine_for(fake(tmp_path, "permission"), tool_step=ToolStep(AllowAll()))
    chat = store.conversations.create()
    assert ended(await run_turn(engine, chat, "go", "fake")).error is None
    assert {"permission": "yes"} in read_log(tmp_path)
    assert isinstance(store.messages(chat)[-1], Message)


async def test_a_reader_that_leaves_early_closes_every_generator_of_the_turn(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    # Left to the collector, a generator's `finally` runs whenever it is collected (after
    # the store closed, in `sightline ask | head`): each layer closes the one it reads.
    engine = engine_for(fake(tmp_path))
    chat = store.conversations.create()
    collected: list[str] = []
    first_iter, finalizer = sys.get_asyncgen_hooks()
    assert finalizer is not None

    def noting(generator: Any) -> None:
        collected.append(generator.__qualname__)
        finalizer(generator)

    sys.set_asyncgen_hooks(first_iter, noting)
    try:
        async with aclosing(engine.run(TurnInput(chat, "hello", requested_model="fake"))) as run:
            async for event in run:
                if isinstance(event, TextAdded):
                    break  # the reader leaves mid-answer
        gc.collect()
        await asyncio.sleep(0)
    finally:
        sys.set_asyncgen_hooks(first_iter, finalizer)
    assert [name for name in collected if "Engine" in name] == []
    _user, answer = store.messages(chat)
    assert answer.status == MessageStatus.STOPPED
