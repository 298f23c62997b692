"""The tool loop: calls run once allowed, results join the transcript, the model goes on."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.store import Store
from app.tools.base import Tool, text_result
from app.tools.read_file import ReadFile
from app.turn.events import ItemAdded, PartAdded, TurnEvent
from app.turn.runner import TurnRunner
from app.turn.tool_step import DENIED, STOPPED, AllowAll, Approval, DenyAll, ToolStep
from routing.catalogue import Catalogue
from routing.transcript import Message, Notice, ToolCall, ToolResult, tool_pictures_text
from routing.wires.base import ToolSpec
from tests.app.turn.engine_helpers import run_turn
from tests.events import ended, stopped_once
from tests.pictures import picture_file
from tests.servers.ollama import FakeOllama, Reply

MODEL = "ollama:qwen2.5vl:3b"  # sees and uses tools


class Waiter:
    """A tool that waits until told, so tests can see calls running at once or cut short."""

    def __init__(self, name: str) -> None:
        self.spec = ToolSpec(name, f"{name} waits")
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.cancelled = False

    async def run(self, call: ToolCall) -> ToolResult:
        self.started.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        return text_result(call, f"{self.spec.name} done")


class Asker:
    """An approver that answers from a script and records what it was asked."""

    def __init__(self, *answers: Approval) -> None:
        self.answers = list(answers)
        self.asked: list[str] = []
        self.others: list[int] = []  # how many more calls of the step each question named

    async def approve(self, conversation_id: str, call: ToolCall, others: int = 0) -> Approval:
        self.asked.append(call.name)
        self.others.append(others)
        return self.answers.pop(0)


async def turn(runner: TurnRunner, cid: str, text: str, tools: Sequence[Tool]) -> list[TurnEvent]:
    return await run_turn(runner, cid, text, MODEL, tools=tools)


def call_reply(*calls: tuple[str, dict[str, Any]]) -> Reply:
    return Reply(tool_calls=[{"name": n, "arguments": a} for n, a in calls])


async def test_a_picture_from_read_file_reaches_the_model_in_its_shape(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    picture_file(tmp_path / "chart.png", "orange", (12, 8))
    fake_ollama.enqueue(call_reply(("read_file", {"path": str(tmp_path / "chart.png")})))
    fake_ollama.enqueue(Reply(text="An orange chart."))
    runner = TurnRunner(store, catalogue, ToolStep(AllowAll()))
    cid = store.conversations.create()
    events = await turn(runner, cid, "what is in chart.png?", [ReadFile()])
    assert ended(events).error is None
    roles = [m.role for m in store.messages(cid)]
    assert roles == ["user", "assistant", "tool", "assistant"]
    [result] = store.messages(cid)[2].tool_results
    second = fake_ollama.chat_requests()[1]
    assert second["tools"][0]["function"]["name"] == "read_file"
    assert second["messages"][-1] == {
        "role": "user",
        "content": tool_pictures_text([(result, result.pictures[0])]),
        "images": [__import__("base64").b64encode(result.pictures[0].data).decode()],
    }
    assert store.messages(cid)[-1].text == "An orange chart."


async def test_a_denied_call_tells_the_model(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    fake_ollama.enqueue(call_reply(("read_file", {"path": "/etc/hostname"})), Reply(text="ok"))
    runner = TurnRunner(store, catalogue, ToolStep(DenyAll()))
    cid = store.conversations.create()
    await turn(runner, cid, "read it", [ReadFile()])
    [result] = store.messages(cid)[2].tool_results
    assert result.is_error and result.text == DENIED
    assert fake_ollama.chat_requests()[1]["messages"][-1]["content"] == f"Error: {DENIED}"


async def test_allowed_for_the_conversation_is_asked_once(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("A")
    read = ("read_file", {"path": str(tmp_path / "a.txt")})
    fake_ollama.enqueue(call_reply(read), call_reply(read), Reply(text="done"))
    asker = Asker(Approval.CONVERSATION)
    runner = TurnRunner(store, catalogue, ToolStep(asker))
    cid = store.conversations.create()
    await turn(runner, cid, "read twice", [ReadFile()])
    assert asker.asked == ["read_file"]
    texts = [r.text for m in store.messages(cid) for r in m.tool_results]
    assert texts == ["A", "A"]


async def test_allowed_in_this_chat_holds_after_a_restart_and_only_in_that_chat(
    catalogue: Catalogue, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("A")
    read = ("read_file", {"path": str(tmp_path / "a.txt")})
    with Store.open(tmp_path / "data") as store:
        cid, other = store.conversations.create(), store.conversations.create()
        fake_ollama.enqueue(call_reply(read), Reply(text="done"))
        first = Asker(Approval.CONVERSATION)
        await turn(
            TurnRunner(store, catalogue, ToolStep(first, grants=store.grants)),
            cid,
            "go",
            [ReadFile()],
        )
        assert first.asked == ["read_file"]
    with Store.open(tmp_path / "data") as store:  # a new session: a new ToolStep
        later = Asker(Approval.ONCE)
        runner = TurnRunner(store, catalogue, ToolStep(later, grants=store.grants))
        fake_ollama.enqueue(call_reply(read), Reply(text="done"))
        await turn(runner, cid, "again", [ReadFile()])
        assert later.asked == []  # remembered for that chat
        fake_ollama.enqueue(call_reply(read), Reply(text="done"))
        await turn(runner, other, "here too?", [ReadFile()])
        assert later.asked == ["read_file"]  # another chat asks
        store.conversations.delete(cid)
        assert store.grants.granted(cid) == set()


async def test_allow_all_runs_the_rest_of_the_step_without_asking_again(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.txt").write_text(name.upper())
    reads = [("read_file", {"path": str(tmp_path / f"{n}.txt")}) for n in ("a", "b", "c")]
    fake_ollama.enqueue(call_reply(*reads), call_reply(reads[0]), Reply(text="done"))
    asker = Asker(Approval.STEP, Approval.DENY)
    runner = TurnRunner(store, catalogue, ToolStep(asker))
    cid = store.conversations.create()
    await turn(runner, cid, "read all three", [ReadFile()])
    # Asked once for the step of three (naming the two others); the next step asks again.
    assert asker.asked == ["read_file", "read_file"] and asker.others == [2, 0]
    texts = [r.text for m in store.messages(cid) for r in m.tool_results]
    assert texts == ["A", "B", "C", DENIED]


async def test_calls_of_one_step_run_at_once(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    first, second = Waiter("first"), Waiter("second")
    fake_ollama.enqueue(call_reply(("first", {}), ("second", {})), Reply(text="both"))
    runner = TurnRunner(store, catalogue, ToolStep(AllowAll()))
    cid = store.conversations.create()
    task = asyncio.create_task(turn(runner, cid, "go", [first, second]))
    # Both start before either is released: they run concurrently.
    await asyncio.wait_for(asyncio.gather(first.started.wait(), second.started.wait()), 10)
    first.release.set()
    second.release.set()
    await asyncio.wait_for(task, 10)
    texts = [r.text for m in store.messages(cid) for r in m.tool_results]
    assert texts == ["first done", "second done"]


async def test_stop_cancels_running_tools_and_every_call_keeps_an_answer(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    slow = Waiter("slow")
    fake_ollama.enqueue(call_reply(("slow", {})))
    runner = TurnRunner(store, catalogue, ToolStep(AllowAll()))
    cid = store.conversations.create()
    await stopped_once(slow.started, turn(runner, cid, "go", [slow]), 10)
    assert slow.cancelled
    [result] = store.messages(cid)[-1].tool_results
    assert result.is_error and result.text == STOPPED
    # The conversation goes on: the next request carries a complete transcript.
    fake_ollama.enqueue(Reply(text="fine"))
    events = await turn(runner, cid, "again", [slow])
    assert ended(events).error is None


async def test_steps_are_bounded(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("A")
    read = ("read_file", {"path": str(tmp_path / "a.txt")})
    fake_ollama.enqueue(*[call_reply(read) for _ in range(5)])
    runner = TurnRunner(store, catalogue, ToolStep(AllowAll()), max_tool_steps=2)
    cid = store.conversations.create()
    events = await turn(runner, cid, "loop forever", [ReadFile()])
    assert len(fake_ollama.chat_requests()) == 3
    notice = store.items(cid)[-1].item
    assert isinstance(notice, Notice) and "Stopped after 2 rounds" in notice.text
    ended(events)


async def test_unknown_tool_and_a_model_without_tools(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue(call_reply(("nonexistent", {})), Reply(text="sorry"))
    runner = TurnRunner(store, catalogue, ToolStep(AllowAll()))
    cid = store.conversations.create()
    events = await turn(runner, cid, "go", [ReadFile()])
    calls = [e.part for e in events if isinstance(e, PartAdded)]
    assert [c.name for c in calls] == ["nonexistent"]  # type: ignore[union-attr]
    [result] = store.messages(cid)[2].tool_results
    assert result.is_error and "no tool named 'nonexistent'" in result.text
    # llava:7b does not take tools (its capabilities say so): it is offered none.
    await run_turn(runner, cid, "plain", "ollama:llava:7b", tools=[ReadFile()])
    assert "tools" not in fake_ollama.chat_requests()[-1]


async def test_tool_results_are_reported_as_items(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("A")
    fake_ollama.enqueue(call_reply(("read_file", {"path": str(tmp_path / "a.txt")})))
    runner = TurnRunner(store, catalogue, ToolStep(AllowAll()))
    cid = store.conversations.create()
    events = await turn(runner, cid, "go", [ReadFile()])
    tool_items = [
        e.item.item
        for e in events
        if isinstance(e, ItemAdded)
        and isinstance(e.item.item, Message)
        and e.item.item.role == "tool"
    ]
    assert [r.text for m in tool_items for r in m.tool_results] == ["A"]


async def test_tools_allowed_in_settings_are_not_asked_about(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("A")
    fake_ollama.enqueue(call_reply(("read_file", {"path": str(tmp_path / "a.txt")})))
    asker = Asker()  # would fail if asked: it has no answers
    runner = TurnRunner(store, catalogue, ToolStep(asker, frozenset({"read_file"})))
    cid = store.conversations.create()
    await turn(runner, cid, "read it", [ReadFile()])
    assert asker.asked == []
    assert [r.text for m in store.messages(cid) for r in m.tool_results] == ["A"]
