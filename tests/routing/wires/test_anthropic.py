"""The Anthropic wire against a real loopback Messages API: request JSON, events, models, errors."""

from __future__ import annotations

import base64
import hashlib
import json
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import aclosing
from pathlib import Path

import httpx
import pytest

from routing.errors import (
    BadRequest,
    CannotConnect,
    ContextTooLong,
    KeyProblem,
    MalformedResponse,
    ModelNotFound,
    PicturesRefused,
    ProviderError,
    RateLimited,
    ServerError,
    TimedOut,
)
from routing.models import ProviderConfig
from routing.transcript import Message, PicturePart, TextPart, ToolCall, ToolResult, user_message
from routing.wires.anthropic import (
    SKIPPED_PICTURE,
    AnthropicWire,
    StreamState,
    build_messages_body,
    parse_event,
)
from routing.wires.base import ChatRequest, Done, TextDelta, ToolCallEvent, ToolSpec, Usage
from tests.events import collect, collect_until_error
from tests.pdfs import text_pdf
from tests.pictures import make_picture
from tests.routing.wires.helpers import text_of
from tests.servers.anthropic import (
    DEFAULT_KEY,
    DEFAULT_MODELS,
    FakeAnthropic,
    FakeModel,
    Reply,
    error_reply,
)
from tests.servers.fixtures import served
from vision.pdf import open_pdf
from vision.pictures import Picture

ROOT = Path(__file__).resolve().parents[3]
MODEL = "claude-sonnet-4-5-20250929"


def raw_picture(data: bytes, mime: str) -> Picture:
    """A picture with whatever bytes and type a test needs."""
    return Picture(data=data, mime=mime, width=1, height=1, sha256=hashlib.sha256(data).hexdigest())


def b64(picture: Picture) -> str:
    """The picture's bytes as the request carries them."""
    return base64.b64encode(picture.data).decode("ascii")


def provider(url: str, key: str = DEFAULT_KEY) -> ProviderConfig:
    """An Anthropic provider at `url` with a key."""
    return ProviderConfig(id="anthropic", kind="anthropic", base_url=url, api_key=key)


def ask(text: str = "Hello", *, system: str = "", tools: tuple[ToolSpec, ...] = ()) -> ChatRequest:
    """One user message to the default model."""
    return ChatRequest(MODEL, (user_message(text),), tools=tools, system=system)


fake = served(FakeAnthropic, "fake")


@pytest.fixture
async def wire(fake: FakeAnthropic) -> AsyncIterator[AnthropicWire]:
    """A wire to the fake server that retries without waiting."""
    async with aclosing(AnthropicWire(provider(fake.base_url), retry_base_delay=0.0)) as w:
        yield w


# -- the request, exactly -------------------------------------------------------


async def test_headers_system_and_text_only_string(
    fake: FakeAnthropic, wire: AnthropicWire
) -> None:
    """Headers, a top-level system string, a text-only user message as a plain string."""
    events = await collect(wire.stream(ask("Hello", system="Be brief.")))
    (sent,) = fake.message_requests()
    assert sent.path == "/v1/messages"
    assert sent.headers["x-api-key"] == DEFAULT_KEY
    assert sent.headers["anthropic-version"] == "2023-06-01"
    assert sent.headers["content-type"] == "application/json"
    assert sent.body == {
        "model": MODEL,
        "max_tokens": 8192,
        "system": "Be brief.",
        "messages": [{"role": "user", "content": "Hello"}],
        "stream": True,
    }
    assert text_of(events) == "You said: Hello"
    assert events[-2:] == [Usage(25, 15), Done("end_turn")]


async def test_the_chats_parameters_in_anthropics_shape(
    fake: FakeAnthropic, wire: AnthropicWire
) -> None:
    """The chat's answer length replaces the default; temperature on Anthropic's 0-1 scale."""
    request = ChatRequest(
        MODEL, (user_message("Hello"),), system="Be brief.", temperature=0.4, max_tokens=500
    )
    await collect(wire.stream(request))
    warmer = ChatRequest(MODEL, (user_message("Hello"),), temperature=1.7)
    await collect(wire.stream(warmer))
    first, second = fake.message_requests()
    assert first.body == {
        "model": MODEL,
        "max_tokens": 500,
        "system": "Be brief.",
        "temperature": 0.4,
        "messages": [{"role": "user", "content": "Hello"}],
        "stream": True,
    }
    assert second.body["temperature"] == 1.0  # its most varied, never a refused request
    assert second.body["max_tokens"] == 8192


async def test_alternation_merges_neighbours_and_folds_system_messages(
    fake: FakeAnthropic, wire: AnthropicWire
) -> None:
    """Same-role neighbours merge, empty messages drop, system-role text joins `system`."""
    messages = (
        Message("system", (TextPart("Rule two."),)),
        user_message("first"),
        user_message("second"),
        Message("assistant", ()),  # an answer that failed before its first word
        user_message("third"),
        Message("assistant", (TextPart("ok"),)),
        user_message("fourth"),
    )
    await collect(wire.stream(ChatRequest(MODEL, messages, system="Rule one.")))
    body = fake.message_requests()[0].body
    assert body["system"] == "Rule one.\n\nRule two."
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "first"},
                {"type": "text", "text": "second"},
                {"type": "text", "text": "third"},
            ],
        },
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "fourth"},
    ]


async def test_picture_blocks_follow_the_text(fake: FakeAnthropic, wire: AnthropicWire) -> None:
    """Attached pictures are base64 image blocks after the words; the server sees them."""
    red, blue = make_picture("red"), make_picture("blue")
    events = await collect(wire.stream(ChatRequest(MODEL, (user_message("look", (red, blue)),))))
    assert fake.message_requests()[0].body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "look"},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": b64(red)},
                },
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": b64(blue)},
                },
            ],
        }
    ]
    assert text_of(events) == "You said: look (I see 2 pictures)"


def test_unsupported_picture_becomes_a_note() -> None:
    """A picture in a type Claude doesn't take is left out with a note, not sent."""
    bmp = raw_picture(b"BM" + b"\0" * 60, "image/bmp")
    body = build_messages_body(ChatRequest(MODEL, (user_message("", (bmp,)),)), 100)
    assert body["max_tokens"] == 100
    assert body["messages"][0]["content"] == SKIPPED_PICTURE


def test_an_attached_pdf_goes_as_a_document_block_before_the_words() -> None:
    """Claude reads PDFs itself: a base64 document block titled with the file's name."""
    data = text_pdf(["Quarterly figures"])
    pdf = open_pdf(data, name="q3.pdf")
    body = build_messages_body(ChatRequest(MODEL, (user_message("Summarise", pdfs=(pdf,)),)))
    assert body["messages"][0]["content"] == [
        {
            "type": "document",
            "source": {
                "type": "base64",
                "media_type": "application/pdf",
                "data": base64.b64encode(data).decode("ascii"),
            },
            "title": "q3.pdf",
        },
        {"type": "text", "text": "Summarise"},
    ]


async def test_tool_use_and_tool_result_blocks(fake: FakeAnthropic, wire: AnthropicWire) -> None:
    """tool_use after the text; ONE user message of tool_results; pictures after their text."""
    shot = make_picture("green")
    messages = (
        user_message("What is on screen?"),
        Message(
            "assistant",
            (
                TextPart("Let me look."),
                ToolCall("toolu_1", "screenshot", {"window": "main"}),
                ToolCall("toolu_2", "read_file", {"path": "a.txt"}),
                ToolCall("toolu_3", "read_file", {"path": "missing.txt"}),
            ),
        ),
        Message(
            "tool",
            (
                ToolResult("toolu_1", "screenshot", (TextPart("800×600"), PicturePart(shot))),
                ToolResult("toolu_2", "read_file", (TextPart("hello"), TextPart("world"))),
                ToolResult("toolu_3", "read_file", (TextPart("no such file"),), is_error=True),
            ),
        ),
    )
    await collect(wire.stream(ChatRequest(MODEL, messages)))
    sent = fake.message_requests()[0].body["messages"]
    assert sent[1] == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me look."},
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "screenshot",
                "input": {"window": "main"},
            },
            {"type": "tool_use", "id": "toolu_2", "name": "read_file", "input": {"path": "a.txt"}},
            {
                "type": "tool_use",
                "id": "toolu_3",
                "name": "read_file",
                "input": {"path": "missing.txt"},
            },
        ],
    }
    assert sent[2] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_1",
                "content": [
                    {"type": "text", "text": "800×600"},
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": b64(shot)},
                    },
                ],
            },
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "hello\nworld"},
            {
                "type": "tool_result",
                "tool_use_id": "toolu_3",
                "content": "no such file",
                "is_error": True,
            },
        ],
    }
    assert len(sent) == 3


def test_tool_results_lead_a_merged_user_message() -> None:
    """A user message after tool results merges in, after them (the API wants them first)."""
    messages = (
        user_message("go"),
        Message("assistant", (ToolCall("toolu_1", "clock", {}),)),
        Message("tool", (ToolResult("toolu_1", "clock", (TextPart("12:00"),)),)),
        user_message("and now?"),
    )
    body = build_messages_body(ChatRequest(MODEL, messages))
    assert body["messages"][2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "12:00"},
            {"type": "text", "text": "and now?"},
        ],
    }


async def test_tools_go_with_input_schema(fake: FakeAnthropic, wire: AnthropicWire) -> None:
    """Tools are name, description and input_schema."""
    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    await collect(wire.stream(ask(tools=(ToolSpec("read_file", "Read a file.", schema),))))
    assert fake.message_requests()[0].body["tools"] == [
        {"name": "read_file", "description": "Read a file.", "input_schema": schema}
    ]


# -- the answer --------------------------------------------------------------------


async def test_streamed_text_arrives_in_pieces(fake: FakeAnthropic, wire: AnthropicWire) -> None:
    """Each text_delta is one TextDelta, in order."""
    fake.enqueue(Reply(text="Hello there, friend", chunk_chars=4))
    events = await collect(wire.stream(ask()))
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert deltas == ["Hell", "o th", "ere,", " fri", "end"]
    assert isinstance(events[-1], Done)


async def test_two_tool_calls_joined_from_fragments(
    fake: FakeAnthropic, wire: AnthropicWire
) -> None:
    """Each tool's input JSON is joined from its input_json_delta fragments, per block."""
    args = {"path": "/tmp/a very long name.txt", "lines": [1, 2, 3], "deep": {"x": "ÿ"}}
    fake.enqueue(
        Reply(
            text="Reading both.",
            tool_calls=[
                {"id": "toolu_A", "name": "read_file", "input": args},
                {"id": "toolu_B", "name": "clock", "input": {}},
            ],
            json_chunk_chars=3,
        )
    )
    events = await collect(wire.stream(ask()))
    calls = [e.call for e in events if isinstance(e, ToolCallEvent)]
    assert [(c.id, c.name, dict(c.arguments)) for c in calls] == [
        ("toolu_A", "read_file", args),
        ("toolu_B", "clock", {}),
    ]
    assert text_of(events) == "Reading both."
    assert events[-1] == Done("tool_use")


async def test_usage_totals_count_cached_input(fake: FakeAnthropic, wire: AnthropicWire) -> None:
    """Input is fresh + cache-written + cache-read; output is message_delta's total."""
    fake.enqueue(
        Reply(
            text="ok",
            input_tokens=10,
            cache_creation_input_tokens=200,
            cache_read_input_tokens=3000,
            output_tokens=42,
            stop_reason="max_tokens",
        )
    )
    events = await collect(wire.stream(ask()))
    assert events[-2:] == [Usage(3210, 42), Done("max_tokens")]


def test_parse_event_edge_cases() -> None:
    """Broken tool JSON is kept raw; thinking, pings and unknown events give nothing."""
    state = StreamState(provider=provider("http://x"))
    start = {"index": 0, "content_block": {"type": "tool_use", "id": "t", "name": "n"}}
    assert parse_event("content_block_start", json.dumps(start), state) == []
    delta = {"index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"a": '}}
    assert parse_event("content_block_delta", json.dumps(delta), state) == []
    (event,) = parse_event("content_block_stop", '{"index": 0}', state)
    assert isinstance(event, ToolCallEvent)
    assert event.call.arguments == {"_raw": '{"a": '}
    thinking = {"index": 1, "delta": {"type": "thinking_delta", "thinking": "hmm"}}
    assert parse_event("content_block_delta", json.dumps(thinking), state) == []
    assert parse_event("ping", '{"type": "ping"}', state) == []
    assert parse_event("brand_new_event", '{"type": "brand_new_event"}', state) == []
    whole = {
        "index": 3,
        "content_block": {"type": "tool_use", "id": "u", "name": "m", "input": {"k": 1}},
    }
    assert parse_event("content_block_start", json.dumps(whole), state) == []
    assert parse_event("content_block_stop", '{"index": 3}', state) == [
        ToolCallEvent(ToolCall("u", "m", {"k": 1}))
    ]
    unnamed = {
        "type": "content_block_delta",
        "index": 2,
        "delta": {"type": "text_delta", "text": "x"},
    }
    assert parse_event("message", json.dumps(unnamed), state) == [TextDelta("x")]
    with pytest.raises(MalformedResponse):
        parse_event("content_block_delta", "not json", state)


# -- listing -------------------------------------------------------------------------


async def test_listing_follows_pages(fake: FakeAnthropic, wire: AnthropicWire) -> None:
    """has_more pages are followed with after_id; every model sees and uses tools."""
    wire.page_size = 2
    models = await wire.list_models()
    assert [m.name for m in models] == [m.id for m in DEFAULT_MODELS]
    assert [m.label for m in models][:2] == ["Claude Opus 4.5", "Claude Haiku 4.5"]
    assert all(m.sees and m.tools and m.local and m.provider_id == "anthropic" for m in models)
    paths = [r.path for r in fake.requests]
    assert paths == [
        "/v1/models?limit=2",
        "/v1/models?limit=2&after_id=claude-haiku-4-5-20251001",
        "/v1/models?limit=2&after_id=claude-sonnet-4-20250514",
    ]
    assert fake.requests[0].headers["x-api-key"] == DEFAULT_KEY
    assert fake.requests[0].headers["anthropic-version"] == "2023-06-01"


async def test_listing_reads_capabilities_where_given() -> None:
    """A listing's image_input and max_input_tokens win; retired models are left out."""
    models = [
        FakeModel(
            "claude-new",
            "Claude New",
            extra={
                "capabilities": {"image_input": {"supported": False}},
                "max_input_tokens": 1_000_000,
                "lifecycle": "active",
            },
        ),
        FakeModel("claude-old", "Claude Old", extra={"lifecycle": "retired"}),
    ]
    with FakeAnthropic(models) as server:
        wire = AnthropicWire(provider(server.base_url))
        try:
            (info,) = await wire.list_models()
        finally:
            await wire.aclose()
    assert (info.name, info.sees, info.context_length) == ("claude-new", False, 1_000_000)


# -- errors ------------------------------------------------------------------------------


async def key_problem(fake: FakeAnthropic, key: str) -> KeyProblem:
    """How a wire with `key` fails: with a KeyProblem, answering and listing alike."""
    wire = AnthropicWire(provider(fake.base_url, key=key))
    try:
        _, error = await collect_until_error(wire.stream(ask()))
        with pytest.raises(KeyProblem):
            await wire.list_models()
    finally:
        await wire.aclose()
    assert isinstance(error, KeyProblem)
    return error


async def test_wrong_key_is_a_key_problem(fake: FakeAnthropic) -> None:
    """The real 401 becomes KeyProblem naming ANTHROPIC_API_KEY; Anthropic's words in detail."""
    error = await key_problem(fake, "sk-ant-wrong")
    assert "ANTHROPIC_API_KEY" in error.message
    assert "invalid x-api-key" in error.detail and "invalid x-api-key" not in error.message


async def test_no_key_fails_before_any_request(fake: FakeAnthropic) -> None:
    """With no key nothing is sent, and the message says where to put one."""
    error = await key_problem(fake, "")
    assert error.message == (
        "Anthropic needs an API key: set ANTHROPIC_API_KEY, or add it in Settings → Providers"
    )
    assert fake.requests == []


async def test_unknown_model_lists_the_available_ones(wire: AnthropicWire) -> None:
    """The real 404 `model: x` becomes ModelNotFound with the key's models."""
    request = ChatRequest("claude-nope", (user_message("hi"),))
    _, error = await collect_until_error(wire.stream(request))
    assert isinstance(error, ModelNotFound)
    assert "claude-nope" in error.message
    assert error.available == tuple(m.id for m in DEFAULT_MODELS)


async def test_429_is_retried_then_answers(fake: FakeAnthropic, wire: AnthropicWire) -> None:
    """A 429 before any output is retried (honouring retry-after) and the answer streams."""
    fake.enqueue(
        error_reply(429, "rate_limit_error", "Number of request tokens exceeded", retry_after="0"),
        Reply(text="finally"),
    )
    events = await collect(wire.stream(ask()))
    assert text_of(events) == "finally"
    assert len(fake.message_requests()) == 2


async def test_529_repeated_gives_up_after_two_retries(
    fake: FakeAnthropic, wire: AnthropicWire
) -> None:
    """Three 529s in a row: two retries, then RateLimited carrying retry_after."""
    overloaded = error_reply(529, "overloaded_error", "Overloaded", retry_after="0")
    fake.enqueue(overloaded, overloaded, overloaded, Reply(text="too late"))
    _, error = await collect_until_error(wire.stream(ask()))
    assert isinstance(error, RateLimited)
    assert error.retry_after == 0.0
    assert "overloaded" in error.message
    assert len(fake.message_requests()) == 3


async def test_long_retry_after_is_not_waited_out(fake: FakeAnthropic, wire: AnthropicWire) -> None:
    """A retry-after past the cap is the person's call: no retry, and the wait is said."""
    fake.enqueue(error_reply(429, "rate_limit_error", "Rate limited", retry_after="30"))
    _, error = await collect_until_error(wire.stream(ask()))
    assert isinstance(error, RateLimited)
    assert error.retry_after == 30.0
    assert "30 seconds" in error.message
    assert len(fake.message_requests()) == 1


@pytest.mark.parametrize(
    ("reply", "kind", "words"),
    [
        (
            error_reply(400, "invalid_request_error", "prompt is too long: 208310 tokens > 200000"),
            ContextTooLong,
            "no longer fits",
        ),
        (
            error_reply(
                400,
                "invalid_request_error",
                "messages.0.content.1.image.source.base64: image exceeds 5 MB maximum: "
                "5577016 bytes > 5242880 bytes",
            ),
            PicturesRefused,
            "picture",
        ),
        (
            error_reply(413, "request_too_large", "Request exceeds the maximum allowed size."),
            BadRequest,
            "too large",
        ),
        (error_reply(500, "api_error", "Internal server error"), ServerError, "its side"),
        (
            error_reply(400, "invalid_request_error", "tools.0.name: String should match pattern"),
            BadRequest,
            "Sightline bug",
        ),
        (
            error_reply(403, "permission_error", "Your API key does not have permission"),
            KeyProblem,
            "not allowed",
        ),
        (Reply(status=200, raw_body="<html><body>Welcome</body></html>"), MalformedResponse, "web"),
        (Reply(status=404, raw_body="<!DOCTYPE html><h1>Not found</h1>"), MalformedResponse, "web"),
        (Reply(status=502, raw_body="<html>Bad gateway</html>"), ServerError, "its side"),
    ],
)
async def test_error_bodies_become_typed_errors(
    fake: FakeAnthropic, wire: AnthropicWire, reply: Reply, kind: type[ProviderError], words: str
) -> None:
    """Each of Anthropic's error answers becomes the error whose next step is right."""
    fake.enqueue(reply)
    events, error = await collect_until_error(wire.stream(ask()))
    assert events == []
    assert type(error) is kind
    assert words in error.message
    assert error.provider_id == "anthropic"
    assert len(fake.message_requests()) == 1


async def test_undecodable_picture_is_refused_by_the_server(
    fake: FakeAnthropic, wire: AnthropicWire
) -> None:
    """The server's own "Could not process image" becomes PicturesRefused."""
    broken = raw_picture(b"not really a png", "image/png")
    _, error = await collect_until_error(
        wire.stream(ChatRequest(MODEL, (user_message("x", (broken,)),)))
    )
    assert isinstance(error, PicturesRefused)
    assert "Could not process image" in error.detail


async def test_error_event_mid_stream_comes_after_the_text(
    fake: FakeAnthropic, wire: AnthropicWire
) -> None:
    """Words already streamed are yielded, then the error; nothing is retried after output."""
    fake.enqueue(
        Reply(text="partial answer", midstream_error={"type": "overloaded_error", "message": "x"})
    )
    events, error = await collect_until_error(wire.stream(ask()))
    assert text_of(events) == "partial answer"
    assert isinstance(error, RateLimited)
    assert error.detail.startswith("in the stream")
    assert len(fake.message_requests()) == 1


async def test_error_event_before_output_is_retried(
    fake: FakeAnthropic, wire: AnthropicWire
) -> None:
    """An overloaded error event before any word counts like a 529: retried."""
    fake.enqueue(
        Reply(midstream_error={"type": "overloaded_error", "message": "Overloaded"}),
        Reply(text="second try"),
    )
    assert text_of(await collect(wire.stream(ask()))) == "second try"
    assert len(fake.message_requests()) == 2


async def test_dropped_stream_is_cut_off_after_its_words(
    fake: FakeAnthropic, wire: AnthropicWire
) -> None:
    """A connection cut mid-stream: the words so far, then ServerError "cut off"."""
    fake.enqueue(Reply(text="one two three four", chunk_chars=4, drop_after=5))
    events, error = await collect_until_error(wire.stream(ask()))
    assert text_of(events) == "one two "
    assert isinstance(error, ServerError)
    assert "cut off" in error.message


async def test_stream_without_message_stop_is_cut_off(
    fake: FakeAnthropic, wire: AnthropicWire
) -> None:
    """A body that ends cleanly but never says message_stop is still a cut-off answer."""
    fake.enqueue(Reply(text="almost", omit_stop=True))
    events, error = await collect_until_error(wire.stream(ask()))
    assert text_of(events) == "almost"
    assert isinstance(error, ServerError)
    assert "cut off" in error.message


async def test_connection_refused_names_the_address() -> None:
    """Nothing listening: CannotConnect, naming where it looked."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    wire = AnthropicWire(provider(f"http://127.0.0.1:{port}"))
    try:
        _, error = await collect_until_error(wire.stream(ask()))
        with pytest.raises(CannotConnect):
            await wire.list_models()
    finally:
        await wire.aclose()
    assert isinstance(error, CannotConnect)
    assert f"127.0.0.1:{port}" in error.message


async def test_slow_server_times_out(fake: FakeAnthropic) -> None:
    """A stream that goes quiet longer than the timeout is TimedOut."""
    fake.enqueue(Reply(text="slow", delay=1.0))
    wire = AnthropicWire(provider(fake.base_url), timeout=0.3)
    try:
        _, error = await collect_until_error(wire.stream(ask()))
    finally:
        await wire.aclose()
    assert isinstance(error, TimedOut)


# -- the server itself -----------------------------------------------------------------------


def test_server_refuses_missing_version_and_key(fake: FakeAnthropic) -> None:
    """The fake answers a missing anthropic-version and key with Anthropic's real bodies."""
    body = {"model": MODEL, "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
    with httpx.Client(base_url=fake.base_url) as client:
        no_version = client.post("/v1/messages", json=body, headers={"x-api-key": DEFAULT_KEY})
        no_key = client.post("/v1/messages", json=body, headers={"anthropic-version": "2023-06-01"})
    assert no_version.status_code == 400
    assert no_version.json()["error"] == {
        "type": "invalid_request_error",
        "message": "anthropic-version: header is required",
    }
    assert no_key.status_code == 401
    assert no_key.json()["error"]["type"] == "authentication_error"
    assert no_key.json()["request_id"].startswith("req_")


def test_server_streams_anthropic_sse(fake: FakeAnthropic) -> None:
    """The raw stream is `event:`/`data:` pairs in Anthropic's order."""
    fake.enqueue(Reply(text="Hi", tool_calls=[{"id": "toolu_X", "name": "f", "input": {"a": 1}}]))
    body = {"model": MODEL, "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
    headers = {"x-api-key": DEFAULT_KEY, "anthropic-version": "2023-06-01"}
    with httpx.Client(base_url=fake.base_url) as client:
        response = client.post("/v1/messages", json=body, headers=headers)
    assert response.headers["content-type"].startswith("text/event-stream")
    names = [line[7:] for line in response.text.splitlines() if line.startswith("event: ")]
    assert names == [
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        *["content_block_delta"] * 3,  # "", '{"a":1', "}"
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]


def test_server_runs_standalone() -> None:
    """`python -m tests.servers.anthropic --port 0` prints its address and serves models."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.servers.anthropic", "--port", "0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        headers = {"x-api-key": DEFAULT_KEY, "anthropic-version": "2023-06-01"}
        listing = httpx.get(f"{url}/v1/models", headers=headers, timeout=5).json()
    finally:
        process.terminate()
        process.wait(timeout=5)
    assert listing["data"][0]["type"] == "model"
    assert listing["has_more"] is False
    assert listing["first_id"] == DEFAULT_MODELS[0].id
