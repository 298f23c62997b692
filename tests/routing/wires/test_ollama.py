"""The Ollama wire against a real loopback Ollama: request JSON, events, models, errors."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator

import pytest

from routing.addresses import ollama_base_url
from routing.errors import (
    BadRequest,
    CannotConnect,
    ContextTooLong,
    MalformedResponse,
    ModelNotFound,
    PicturesRefused,
    ServerError,
    TimedOut,
)
from routing.models import ModelInfo, ProviderConfig
from routing.transcript import (
    Message,
    PicturePart,
    TextPart,
    ToolCall,
    ToolResult,
    tool_pictures_text,
    user_message,
)
from routing.wires.base import ChatRequest, Done, TextDelta, ToolCallEvent, ToolSpec, Usage
from routing.wires.ollama import OllamaWire, parse_chunk
from tests.events import collect
from tests.pictures import make_picture
from tests.routing.wires.helpers import failure, text_of
from tests.servers.loopback import closed_port
from tests.servers.ollama import REFUSAL_OLD_RUNNER, FakeModel, FakeOllama, Reply, tags_entry


def wire_for(url: str, *, timeout: float = 5.0) -> OllamaWire:
    """A wire to Ollama at `url`."""
    return OllamaWire(ProviderConfig(id="ollama", kind="ollama", base_url=url), timeout=timeout)


@pytest.fixture
async def wire(fake_ollama: FakeOllama) -> AsyncIterator[OllamaWire]:
    """A wire to the loopback Ollama, closed after the test."""
    wire = wire_for(fake_ollama.base_url)
    yield wire
    await wire.aclose()


def ask(
    text: str, model: str = "llama3.2:3b", *, system: str = "", tools: tuple[ToolSpec, ...] = ()
) -> ChatRequest:
    """A one-message request."""
    return ChatRequest(model=model, messages=(user_message(text),), tools=tools, system=system)


# -- the request JSON ----------------------------------------------------------------


async def test_text_only_request_is_plain_strings(
    wire: OllamaWire, fake_ollama: FakeOllama
) -> None:
    """System prompt first, then string content; no empty images or tools keys."""
    events = await collect(wire.stream(ask("hi there", system="Be brief.")))
    assert fake_ollama.chat_requests() == [
        {
            "model": "llama3.2:3b",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "hi there"},
            ],
            "stream": True,
        }
    ]
    assert text_of(events) == "You said: hi there"
    assert len([e for e in events if isinstance(e, TextDelta)]) > 1  # it really streamed
    # The fake's eval_duration, 654,321,000 ns: the server's own time generating.
    assert events[-2:] == [Usage(12, 7, generating_seconds=0.654321), Done("stop")]


async def test_the_chats_parameters_go_as_options(
    wire: OllamaWire, fake_ollama: FakeOllama
) -> None:
    """Temperature, answer length and context length in Ollama's own names, nothing else."""
    request = ChatRequest(
        "llama3.2:3b",
        (user_message("hi"),),
        system="You are terse.",
        temperature=0.3,
        max_tokens=256,
        context_length=8192,
    )
    await collect(wire.stream(request))
    assert fake_ollama.chat_requests() == [
        {
            "model": "llama3.2:3b",
            "messages": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "hi"},
            ],
            "options": {"temperature": 0.3, "num_predict": 256, "num_ctx": 8192},
            "stream": True,
        }
    ]


async def test_only_the_parameters_set_are_sent(wire: OllamaWire, fake_ollama: FakeOllama) -> None:
    await collect(wire.stream(ChatRequest("llama3.2:3b", (user_message("hi"),), temperature=0.0)))
    (sent,) = fake_ollama.chat_requests()
    assert sent["options"] == {"temperature": 0.0}


async def test_pictures_go_as_raw_base64(wire: OllamaWire, fake_ollama: FakeOllama) -> None:
    """A message's pictures become `images`, base64 without a data: prefix."""
    red, blue = make_picture("red"), make_picture("blue")
    request = ChatRequest(model="llava:7b", messages=(user_message("what?", (red, blue)),))
    events = await collect(wire.stream(request))
    sent = fake_ollama.chat_requests()[0]["messages"]
    assert sent == [
        {
            "role": "user",
            "content": "what?",
            "images": [base64.b64encode(p.data).decode() for p in (red, blue)],
        }
    ]
    assert text_of(events) == "You said: what? (I see 2 pictures)"


async def test_tools_and_tool_turns(wire: OllamaWire, fake_ollama: FakeOllama) -> None:
    """Tools, an assistant's tool calls and each tool result map to Ollama's shapes."""
    call = ToolCall(id="call_0", name="get_weather", arguments={"city": "Oslo", "days": [1, 2]})
    photo = make_picture("green")
    camera = ToolResult("call_2", "camera", (TextPart("a photo"), PicturePart(photo)))
    history = (
        user_message("weather?"),
        Message(role="assistant", parts=(call,)),
        Message(
            role="tool",
            parts=(
                ToolResult("call_0", "get_weather", (TextPart("sunny"), TextPart("12 C"))),
                ToolResult("call_1", "screenshot", (TextPart("denied"),), is_error=True),
                camera,
            ),
        ),
    )
    spec = ToolSpec(
        "get_weather",
        "Weather for a city.",
        {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    )
    await collect(wire.stream(ChatRequest(model="qwen2.5vl:3b", messages=history, tools=(spec,))))
    assert fake_ollama.chat_requests()[0] == {
        "model": "qwen2.5vl:3b",
        "messages": [
            {"role": "user", "content": "weather?"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "function": {
                            "name": "get_weather",
                            "arguments": {"city": "Oslo", "days": [1, 2]},
                        }
                    }
                ],
            },
            {"role": "tool", "content": "sunny\n12 C", "tool_name": "get_weather"},
            {"role": "tool", "content": "Error: denied", "tool_name": "screenshot"},
            {"role": "tool", "content": "a photo", "tool_name": "camera"},
            # The step's tool pictures follow in one user message, marked as tool output.
            {
                "role": "user",
                "content": tool_pictures_text([(camera, photo)]),
                "images": [base64.b64encode(photo.data).decode("ascii")],
            },
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "Weather for a city.",
                    "parameters": {
                        "type": "object",
                        "properties": {"city": {"type": "string"}},
                        "required": ["city"],
                    },
                },
            }
        ],
        "stream": True,
    }


# -- the answer ------------------------------------------------------------------------


async def test_tool_calls_become_events(wire: OllamaWire, fake_ollama: FakeOllama) -> None:
    """Text, then each tool call whole with a stable id, then usage and done."""
    fake_ollama.enqueue(
        Reply(
            text="Let me check.",
            tool_calls=[
                {"name": "get_weather", "arguments": {"city": "Oslo"}},
                {"name": "get_time", "arguments": {}},
            ],
            prompt_eval_count=40,
            eval_count=9,
        ),
        Reply(tool_calls=[{"id": "call_abc123", "name": "get_time", "arguments": {"tz": "UTC"}}]),
    )
    events = await collect(wire.stream(ask("weather and time?")))
    assert text_of(events) == "Let me check."
    calls = [e.call for e in events if isinstance(e, ToolCallEvent)]
    assert calls == [
        ToolCall("call_0", "get_weather", {"city": "Oslo"}),
        ToolCall("call_1", "get_time", {}),
    ]
    assert events[-2:] == [Usage(40, 9, generating_seconds=0.654321), Done("stop")]
    again = await collect(wire.stream(ask("time?")))
    assert [e.call.id for e in again if isinstance(e, ToolCallEvent)] == ["call_abc123"]


def test_parse_chunk_is_pure() -> None:
    """One line in, its events out; ids continue from `calls_so_far`."""
    line = {
        "model": "m",
        "message": {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "f"}}],
        },
        "done": False,
    }
    assert parse_chunk(line, calls_so_far=3) == [ToolCallEvent(ToolCall("call_3", "f", {}))]
    assert parse_chunk({"message": {"role": "assistant", "content": ""}, "done": False}) == []
    done = {"message": {"content": ""}, "done": True, "done_reason": "length", "eval_count": 5}
    assert parse_chunk(done) == [Usage(0, 5), Done("length")]


# -- models ----------------------------------------------------------------------------


async def test_models_with_sight_tools_and_context(
    wire: OllamaWire, fake_ollama: FakeOllama
) -> None:
    """/api/tags then /api/show for each: sees, tools, context length, local, and the
    size on disk /api/tags gives."""
    models = {m.name: m for m in await wire.list_models()}
    size = tags_entry(FakeModel("llama3.2:3b", ()))["size"]
    assert models["llama3.2:3b"] == ModelInfo(
        "ollama",
        "llama3.2:3b",
        sees=False,
        tools=True,
        local=True,
        context_length=131072,
        size=size,
    )
    assert (models["llava:7b"].sees, models["llava:7b"].tools) == (True, False)
    assert (models["qwen2.5vl:3b"].sees, models["qwen2.5vl:3b"].tools) == (True, True)
    assert models["qwen2.5vl:3b"].context_length == 128000
    assert (models["gemma3:270m"].sees, models["gemma3:270m"].tools) == (False, False)
    shows = [b for m, p, b in fake_ollama.requests if p == "/api/show"]
    assert sorted(b["model"] for b in shows if b) == sorted(models)


async def test_models_unknowns_and_failures() -> None:
    """No capabilities: unknown; a projector means sight; a failing show leaves unknowns."""
    models = [
        FakeModel("old:7b", ()),
        FakeModel("llava:13b", ("completion",)),  # before ollama PR 10509
        FakeModel("broken:1b", ("completion", "vision"), show_status=500),
        FakeModel("fine:1b", ("completion", "vision")),
    ]
    with FakeOllama(models) as server:
        wire = wire_for(server.base_url)
        try:
            found = {m.name: m for m in await wire.list_models()}
        finally:
            await wire.aclose()
    assert (found["old:7b"].sees, found["old:7b"].tools) == (None, None)
    assert found["llava:13b"].sees is True
    size = tags_entry(FakeModel("broken:1b", ()))["size"]
    assert found["broken:1b"] == ModelInfo("ollama", "broken:1b", local=True, size=size)
    assert found["fine:1b"].sees is True


# -- errors ----------------------------------------------------------------------------


async def test_unknown_model_lists_what_there_is(wire: OllamaWire) -> None:
    """A 404 becomes ModelNotFound with Ollama's models in `available`."""
    with pytest.raises(ModelNotFound) as caught:
        await collect(wire.stream(ask("hi", model="llama9:1b")))
    error = caught.value
    assert "ollama pull llama9:1b" in error.message
    assert error.available == ("llama3.2:3b", "llava:7b", "qwen2.5vl:3b", "gemma3:270m")
    assert 'model "llama9:1b" not found' in error.detail
    assert error.provider_id == "ollama"


async def test_picture_to_blind_model_500(wire: OllamaWire) -> None:
    """The older runner's 500 refusal becomes PicturesRefused."""
    request = ChatRequest(model="gemma3:270m", messages=(user_message("see?", (make_picture(),)),))
    with pytest.raises(PicturesRefused) as caught:
        await collect(wire.stream(request))
    assert "gemma3:270m" in caught.value.message
    assert REFUSAL_OLD_RUNNER in caught.value.detail


async def test_refusal_inside_a_200_stream(wire: OllamaWire, fake_ollama: FakeOllama) -> None:
    """An `{"error": ...}` refusal line under HTTP 200 is still a refusal."""
    fake_ollama.enqueue(Reply(midstream_error=REFUSAL_OLD_RUNNER))
    with pytest.raises(PicturesRefused):
        await collect(wire.stream(ask("see?", model="llava:7b")))


async def test_other_midstream_error_after_text(wire: OllamaWire, fake_ollama: FakeOllama) -> None:
    """Text already streamed is yielded, then the error line raises ServerError."""
    fake_ollama.enqueue(Reply(text="partial answer", midstream_error="llama runner crashed"))
    text, error = await failure(wire.stream(ask("hi")))
    assert isinstance(error, ServerError) and text == "partial answer"
    assert "llama runner crashed" in error.detail


async def test_connection_dropped_midstream(wire: OllamaWire, fake_ollama: FakeOllama) -> None:
    """A connection cut mid-answer is a ServerError saying the answer was cut off."""
    fake_ollama.enqueue(Reply(text="abcdefghijkl", drop_after=2))
    text, error = await failure(wire.stream(ask("hi")))
    assert isinstance(error, ServerError) and text == "abcdefgh"
    assert "cut off" in error.message


async def test_connection_refused_on_closed_port() -> None:
    """Nothing listening: CannotConnect naming the address and how to start Ollama."""
    url = f"http://127.0.0.1:{closed_port()}"
    wire = wire_for(url)
    try:
        with pytest.raises(CannotConnect) as caught:
            await collect(wire.stream(ask("hi")))
        with pytest.raises(CannotConnect):
            await wire.list_models()
    finally:
        await wire.aclose()
    assert url.removeprefix("http://") in caught.value.message  # named by host and port
    assert "ollama serve" in caught.value.message and "OLLAMA_HOST" in caught.value.message


@pytest.mark.parametrize("status", [200, 502])
async def test_html_body_is_malformed(
    wire: OllamaWire, fake_ollama: FakeOllama, status: int
) -> None:
    """A web page (a proxy, a captive portal) instead of Ollama: MalformedResponse."""
    fake_ollama.enqueue(Reply(status=status, raw_body="<html><body>Bad Gateway</body></html>"))
    with pytest.raises(MalformedResponse) as caught:
        await collect(wire.stream(ask("hi")))
    assert "<html>" in caught.value.detail


@pytest.mark.parametrize(
    "line", ['{"model":"llama3.2:3b","message":{"role":"assis', "[1, 2]", '{"status":"ok"}']
)
async def test_broken_or_misshapen_line(
    wire: OllamaWire, fake_ollama: FakeOllama, line: str
) -> None:
    """A line that isn't JSON, or JSON of the wrong shape: MalformedResponse."""
    fake_ollama.enqueue(Reply(text="ok", raw_lines=[line]))
    with pytest.raises(MalformedResponse):
        await collect(wire.stream(ask("hi")))


async def test_timeout(fake_ollama: FakeOllama) -> None:
    """A server slower than the wire's timeout: TimedOut."""
    fake_ollama.enqueue(Reply(text="slow", delay=1.0))
    wire = wire_for(fake_ollama.base_url, timeout=0.2)
    try:
        with pytest.raises(TimedOut):
            await collect(wire.stream(ask("hi")))
    finally:
        await wire.aclose()


async def test_other_statuses(wire: OllamaWire, fake_ollama: FakeOllama) -> None:
    """Context, other 5xx and other 4xx each get their own error."""
    fake_ollama.enqueue(
        Reply(status=500, body={"error": "input length exceeds the context length"}),
        Reply(status=500, body={"error": "llama runner process has terminated"}),
    )
    with pytest.raises(ContextTooLong):
        await collect(wire.stream(ask("long")))
    with pytest.raises(ServerError):
        await collect(wire.stream(ask("hi")))
    spec = ToolSpec("f", "does f")
    with pytest.raises(BadRequest) as caught:  # real Ollama: 400 "... does not support tools"
        await collect(wire.stream(ask("hi", model="gemma3:270m", tools=(spec,))))
    assert "tools" in caught.value.message


# -- the address -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("configured", "env", "expected"),
    [
        (None, None, "http://127.0.0.1:11434"),
        ("", "", "http://127.0.0.1:11434"),
        (None, "1.2.3.4", "http://1.2.3.4:11434"),
        (None, "1.2.3.4:56789", "http://1.2.3.4:56789"),
        (None, ":56789", "http://127.0.0.1:56789"),
        (None, "example.com", "http://example.com:11434"),
        (None, "http://example.com", "http://example.com:80"),
        (None, "https://example.com", "https://example.com:443"),
        (None, "https://example.com:8443/ollama/", "https://example.com:8443/ollama"),
        (None, "0.0.0.0", "http://127.0.0.1:11434"),
        (None, "0.0.0.0:9999", "http://127.0.0.1:9999"),
        (None, "[::1]:9999", "http://[::1]:9999"),
        ("http://localhost:11434/", "1.2.3.4", "http://localhost:11434"),
        ("box.lan:1234", None, "http://box.lan:1234"),
    ],
)
def test_ollama_base_url(configured: str | None, env: str | None, expected: str) -> None:
    """OLLAMA_HOST read as the Ollama client reads it; a configured address wins."""
    environ = {} if env is None else {"OLLAMA_HOST": env}
    assert ollama_base_url(configured, environ) == expected


async def test_wire_uses_ollama_host_when_unconfigured(
    fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no base_url the wire finds Ollama through OLLAMA_HOST (bare host:port)."""
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{fake_ollama.port}")
    wire = OllamaWire(ProviderConfig(id="ollama", kind="ollama", base_url=""))
    try:
        assert wire.base_url == fake_ollama.base_url
        assert all(m.local for m in await wire.list_models())
    finally:
        await wire.aclose()
