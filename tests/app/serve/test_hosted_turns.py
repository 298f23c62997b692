"""A host's served turns (app/serve/hosted_turns.py): told as they start, as each event
happens, and as they end, offered the host's tools, each call asked of the host's approver
every time; without the host's tools, the model is offered none."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from app.assembly import Assembly
from app.config import Config
from app.serve.hosted_turns import hosted_served
from app.serve.served import Asked, Finished, Words
from app.store import Store
from app.toolbox import builtin_tools
from app.tools.base import Tool
from app.turn.events import ItemFinished, TextAdded, TurnEvent
from app.turn.tool_step import Approval
from routing.catalogue import Catalogue
from routing.transcript import ToolCall, ToolResult, user_message
from tests.servers.ollama import FakeOllama, Reply

MODEL = "ollama:llama3.2:3b"  # uses tools


class Host:
    """A host that notes what it is told and answers every call as `answer`."""

    def __init__(self, offered: Sequence[Tool], answer: Approval = Approval.ONCE) -> None:
        self.offered, self.answer = offered, answer
        self.asked: list[tuple[str, str]] = []
        self.told: list[tuple[str, str]] = []
        self.events: list[tuple[str, TurnEvent]] = []

    async def tools(self) -> Sequence[Tool]:
        return self.offered

    async def approve(self, conversation_id: str, call: ToolCall, others: int = 0) -> Approval:
        self.asked.append((conversation_id, call.name))
        return self.answer

    def turn_started(self, conversation_id: str) -> None:
        self.told.append(("started", conversation_id))

    def turn_event(self, conversation_id: str, event: TurnEvent) -> None:
        self.events.append((conversation_id, event))

    def turn_ended(self, conversation_id: str) -> None:
        self.told.append(("ended", conversation_id))


async def served_answer(
    host: Host, store: Store, catalogue: Catalogue, question: str
) -> tuple[str, Finished]:
    served = hosted_served(Assembly(Config(store.path.parent), store), catalogue, host)
    words, finished = "", None
    async for said in served.run(Asked(MODEL, user_message(question), client="a script")):
        if isinstance(said, Words):
            words += said.text
        elif isinstance(said, Finished):
            finished = said
    assert finished is not None
    return words, finished


def read_call(path: Path, text: str) -> Reply:
    """A file holding `text`, and the model's call to read it."""
    path.write_text(text, encoding="utf-8")
    return Reply(tool_calls=[{"name": "read_file", "arguments": {"path": str(path)}}])


async def test_a_served_turn_offers_the_hosts_tools_and_asks_it_for_each_call(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    call = read_call(tmp_path / "notes.txt", "Buy milk\n")
    fake_ollama.enqueue(call, call, Reply(text="You need milk."))
    host = Host(builtin_tools())
    words, finished = await served_answer(host, store, catalogue, "What do I need?")
    assert words == "You need milk." and finished.error is None
    chat = finished.conversation_id
    assert host.told == [("started", chat), ("ended", chat)]
    # Asked every time: "Allow once" is once, and nothing runs without asking.
    assert host.asked == [(chat, "read_file"), (chat, "read_file")]
    offered = fake_ollama.chat_requests()[0]["tools"]
    assert {tool["function"]["name"] for tool in offered} == {"read_file", "screenshot"}
    results = [
        part
        for message in store.messages(chat)
        if message.role == "tool"
        for part in message.parts
        if isinstance(part, ToolResult)
    ]
    assert len(results) == 2 and all("Buy milk" in r.text for r in results)
    assert store.conversations.get(chat).title == "Served to a script"  # type: ignore[union-attr]


async def test_a_call_the_person_refuses_is_not_run(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    call = read_call(tmp_path / "secret.txt", "the combination is 1234\n")
    fake_ollama.enqueue(call, Reply(text="I wasn't allowed to read it."))
    host = Host(builtin_tools(), Approval.DENY)
    words, _ = await served_answer(host, store, catalogue, "Read my secret")
    assert words == "I wasn't allowed to read it."
    told_model = fake_ollama.chat_requests()[-1]["messages"][-1]
    assert told_model["role"] == "tool" and "1234" not in told_model["content"]


async def test_without_the_hosts_tools_the_model_is_offered_none(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    host = Host(())
    words, finished = await served_answer(host, store, catalogue, "Hi")
    assert words == "You said: Hi"
    assert "tools" not in fake_ollama.chat_requests()[-1]
    assert host.asked == []
    assert host.told == [("started", finished.conversation_id), ("ended", finished.conversation_id)]
    # Each event reached the host as it happened: a window shows the chat live.
    seen = [event for chat, event in host.events if chat == finished.conversation_id]
    assert "".join(e.text for e in seen if isinstance(e, TextAdded)) == "You said: Hi"
    assert any(isinstance(e, ItemFinished) for e in seen)
