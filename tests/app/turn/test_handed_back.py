"""A client's tools beside Sightline's in a served turn of the window's server
(app/turn/handed_back.py): a client's tool named as one of Sightline's is the client's, and
a step that calls both ends at the client's calls, Sightline's left unrun and unasked."""

from __future__ import annotations

from app.assembly import Assembly
from app.config import Config
from app.serve.hosted_turns import hosted_served
from app.serve.served import Asked, Finished
from app.store import Store
from app.toolbox import builtin_tools
from routing.catalogue import Catalogue
from routing.transcript import ToolResult, user_message
from routing.wires.base import ToolChoice, ToolSpec
from tests.app.serve.test_hosted_turns import MODEL, Host
from tests.servers.ollama import FakeOllama, Reply

CLIENTS_READ = ToolSpec(
    "read_file", "The client's own file reader.", {"type": "object", "properties": {}}
)
WEATHER = ToolSpec("get_weather", "The weather now.")


async def finished_with(
    host: Host,
    store: Store,
    catalogue: Catalogue,
    tools: tuple[ToolSpec, ...],
    choice: ToolChoice | None = None,
) -> Finished:
    served = hosted_served(Assembly(Config(store.path.parent), store), catalogue, host)
    asked = Asked(MODEL, user_message("Go"), client="a script", tools=tools, tool_choice=choice)
    said = [s async for s in served.run(asked)]
    assert isinstance(said[-1], Finished)
    return said[-1]


async def test_a_clients_tool_named_as_sightlines_is_the_clients(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue(Reply(tool_calls=[{"name": "read_file", "arguments": {"path": "/x"}}]))
    host = Host(builtin_tools())
    finished = await finished_with(host, store, catalogue, (CLIENTS_READ,))
    assert finished.reason == "tool_calls"
    assert [(c.name, dict(c.arguments)) for c in finished.calls] == [("read_file", {"path": "/x"})]
    assert host.asked == []  # handed back: nothing of Sightline's ran, nobody was asked
    offered = fake_ollama.chat_requests()[0]["tools"]
    [reader] = [t["function"] for t in offered if t["function"]["name"] == "read_file"]
    assert reader["description"] == "The client's own file reader."


async def test_a_step_calling_both_ends_at_the_clients_calls(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    both = Reply(
        tool_calls=[
            {"name": "screenshot", "arguments": {}},
            {"name": "get_weather", "arguments": {"city": "Oslo"}},
        ]
    )
    fake_ollama.enqueue(both)
    host = Host(builtin_tools())
    finished = await finished_with(host, store, catalogue, (WEATHER,))
    assert [c.name for c in finished.calls] == ["get_weather"]
    assert host.asked == []
    last = store.messages(finished.conversation_id)[-1]
    [unrun] = [p for p in last.parts if isinstance(p, ToolResult)]
    assert last.role == "tool" and unrun.name == "screenshot" and unrun.is_error
    assert "Not run" in unrun.text
    assert len(fake_ollama.chat_requests()) == 1  # the turn ended: the model wasn't asked again


async def test_a_call_required_is_one_of_the_clients_tools_not_sightlines(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    """The client offered only its own: a call it requires is of those, so the window's
    tools are left out of that request (and Ollama, which can't be made to, is told of)."""
    fake_ollama.enqueue(Reply(tool_calls=[{"name": "get_weather", "arguments": {}}]))
    host = Host(builtin_tools())
    finished = await finished_with(host, store, catalogue, (WEATHER,), ToolChoice("required"))
    assert [c.name for c in finished.calls] == ["get_weather"]
    offered = fake_ollama.chat_requests()[0]["tools"]
    assert [t["function"]["name"] for t in offered] == ["get_weather"]
    assert any("can't be made to call a tool" in n.text for n in finished.notices)
