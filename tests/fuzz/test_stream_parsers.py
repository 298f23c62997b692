"""The stream parsers take anything a server sends: events of the right types, or a ProviderError.

Each wire is fuzzed twice: its parse function with arbitrary JSON (shaped like the
provider's chunks, and not), and the whole wire with arbitrary text as the body of
a 200 answer (httpx's MockTransport: no sockets), so line splitting, SSE framing
and JSON decoding are covered too. No input may raise anything but a ProviderError.

Bugs found here that the source has not fixed yet are marked xfail (strict) with
an explicit example, so each flips to a failure the moment it is fixed; a
"guard" property per wire keeps their inputs out and protects everything else.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from contextlib import suppress
from typing import Any

import httpx
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from routing.errors import ProviderError
from routing.models import ProviderConfig
from routing.presets import preset_for
from routing.transcript import user_message
from routing.wires import anthropic, ollama, openai_chat
from routing.wires.base import (
    ChatRequest,
    Done,
    StreamEvent,
    TextDelta,
    ToolCallEvent,
    Usage,
    Wire,
)
from tests.fuzz.strategies import FEW, FUZZ, JSON, JUNK_TEXT, dumps, known_bugs, shaped

PROVIDER = ProviderConfig("fuzz", "custom", "http://127.0.0.1:9/v1", api_key="sk-fuzz-key")
REQUEST = ChatRequest("some-model", (user_message("hi"),))
TEXTS = st.text(max_size=20)
COUNTS = st.integers(min_value=0, max_value=10**6)
DEEP = "[" * 3000 + "]" * 3000  # valid JSON, nested deeper than the json module allows

DEEP_JSON = (
    "JSON nested deeper than the recursion limit raises RecursionError, which the wires' "
    "`except ValueError` around json.loads does not catch"
)
OLLAMA_COUNTS = (
    "routing/wires/ollama.py parse_chunk: int(obj.get('prompt_eval_count') or 0) raises "
    "ValueError/TypeError/OverflowError for a count that is not an integer"
)
OPENAI_CHUNKS = (
    "routing/wires/openai_chat.py: _usage int()s a non-integer count when the other one is an "
    "integer; _stream_error int()s a code that str.isdigit() accepts ('²', 5000 digits); "
    "parse_chunk joins content parts whose `text` is not a string"
)
ANTHROPIC_INDEX = (
    "routing/wires/anthropic.py parse_event: `index in state.tools` raises TypeError when a "
    "content_block_delta's index is a list or an object (unhashable)"
)


DEEP_JSON_BUG = known_bugs(DEEP_JSON)


def well_typed(events: Iterable[StreamEvent]) -> None:
    """Every event has fields of the types its consumers rely on."""
    for event in events:
        if isinstance(event, TextDelta):
            assert isinstance(event.text, str)
        elif isinstance(event, ToolCallEvent):
            call = event.call
            assert isinstance(call.id, str) and isinstance(call.name, str) and call.name
            assert isinstance(call.arguments, dict)
        elif isinstance(event, Usage):
            assert isinstance(event.input_tokens, int) and isinstance(event.output_tokens, int)
        else:
            assert isinstance(event, Done) and isinstance(event.reason, str)


def streamed(wire: Wire) -> list[StreamEvent]:
    """Everything the wire yields for one request, or [] when it fails the typed way."""

    async def run() -> list[StreamEvent]:
        return [event async for event in wire.stream(REQUEST)]

    try:
        events = asyncio.run(run())
    except ProviderError as error:
        assert isinstance(error.message, str) and error.message
        return []
    well_typed(events)
    assert events and isinstance(events[-1], Done)  # a stream that ends without one raised
    return events


def client(body: str, content_type: str) -> httpx.AsyncClient:
    """A client whose every request gets a 200 with this body, through no socket."""
    headers = {"content-type": content_type}
    content = body.encode("utf-8", "surrogatepass")
    transport = httpx.MockTransport(
        lambda request: httpx.Response(200, headers=headers, content=content)
    )
    return httpx.AsyncClient(transport=transport, trust_env=False)


# -- Ollama: NDJSON ------------------------------------------------------------------


def ollama_line(counts: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """A line of /api/chat's stream, its usage counts drawn from `counts`."""
    function = shaped({"name": TEXTS | JSON, "arguments": JSON | TEXTS.map(dumps)})
    call = shaped({"function": function | JSON, "id": JSON})
    message = shaped(
        {"role": JSON, "content": TEXTS | JSON, "tool_calls": st.lists(call, max_size=2) | JSON}
    )
    return shaped(
        {
            "model": JSON,
            "message": message | JSON,
            "done": st.booleans() | JSON,
            "done_reason": JSON,
            "prompt_eval_count": counts,
            "eval_count": counts,
            "error": TEXTS | JSON,
        }
    )


OLLAMA_LINE = ollama_line(COUNTS | JSON)
ODD_COUNT = {"done": True, "prompt_eval_count": "many", "eval_count": 1}
OLLAMA_BUG = known_bugs(OLLAMA_COUNTS)


def ollama_events(line: Any, calls: int = 0) -> list[StreamEvent]:
    """The events of one line, checked; [] when it is refused the typed way."""
    try:
        events = ollama.parse_chunk(line, provider_id="fuzz", calls_so_far=calls)
    except ProviderError:
        return []
    well_typed(events)
    return events


def ndjson(lines: list[str]) -> httpx.AsyncClient:
    return client("\n".join(lines), "application/x-ndjson")


@OLLAMA_BUG
@FUZZ
@given(st.lists(OLLAMA_LINE | JSON, max_size=5))
@example([ODD_COUNT])
def test_ollama_parse_chunk_takes_any_json(lines: list[Any]) -> None:
    calls = 0
    for line in lines:
        calls += sum(isinstance(e, ToolCallEvent) for e in ollama_events(line, calls))


@OLLAMA_BUG
@pytest.mark.parametrize("count", ["many", [1], float("inf"), float("nan")])
def test_ollama_usage_that_is_not_a_number(count: object) -> None:
    ollama_events({"done": True, "prompt_eval_count": count, "eval_count": 1})


@known_bugs(OLLAMA_COUNTS, DEEP_JSON)
@FEW
@given(st.lists(OLLAMA_LINE.map(dumps) | JUNK_TEXT, max_size=6))
@example([dumps(ODD_COUNT)])
def test_ollama_wire_takes_any_body(lines: list[str]) -> None:
    streamed(ollama.OllamaWire(PROVIDER, client=ndjson(lines)))


@FEW
@given(st.lists(ollama_line(COUNTS).map(dumps) | st.text(max_size=60), max_size=6))
def test_guard_ollama_wire_takes_any_body_with_integer_counts(lines: list[str]) -> None:
    streamed(ollama.OllamaWire(PROVIDER, client=ndjson(lines)))


@DEEP_JSON_BUG
def test_ollama_wire_takes_deeply_nested_json() -> None:
    streamed(ollama.OllamaWire(PROVIDER, client=ndjson([DEEP])))


# -- the OpenAI shape: SSE -----------------------------------------------------------


def usage(counts: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return shaped({"prompt_tokens": counts, "completion_tokens": counts, "total_tokens": COUNTS})


def openai_chunk(lenient: bool) -> st.SearchStrategy[dict[str, Any]]:
    """A chunk of the OpenAI shape's stream; `lenient=False` keeps the known bugs' inputs out."""
    anything = JSON if lenient else st.nothing()
    counts = usage(COUNTS | anything)
    function = shaped({"name": TEXTS | JSON, "arguments": TEXTS | JSON})
    fragment = shaped(
        {
            "index": st.integers(min_value=-1, max_value=3) | JSON,
            "id": TEXTS | JSON,
            "type": st.just("function") | JSON,
            "function": function | JSON,
        }
    )
    part = shaped({"type": st.just("text"), "text": TEXTS | anything})
    delta = shaped(
        {
            "role": st.just("assistant") | JSON,
            "content": TEXTS | st.lists(part, max_size=3) | st.none() | anything,
            "tool_calls": st.lists(fragment, max_size=3) | JSON,
        }
    )
    choice = shaped(
        {
            "index": st.just(0) | JSON,
            "delta": delta,
            "message": delta,
            "finish_reason": st.sampled_from([None, "stop", "tool_calls", "length"]) | JSON,
            "usage": counts,
        }
    )
    codes = st.integers(400, 599) | (TEXTS if lenient else st.sampled_from(["", "429", "x"]))
    return shaped(
        {
            "choices": st.lists(choice, max_size=2) | anything,
            "usage": counts | anything,
            "x_groq": shaped({"usage": counts}),
            "error": shaped({"message": TEXTS, "code": codes}) | anything,
        }
    )


OPENAI_CHUNK = openai_chunk(lenient=True)
ODD_USAGE = {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": "seven"}}
OPENAI_BUGS = known_bugs(OPENAI_CHUNKS)


def openai_state() -> openai_chat.StreamState:
    return openai_chat.StreamState(PROVIDER, preset_for("custom"), model="some-model")


def sse(payloads: list[str]) -> str:
    return "".join(f"data: {p}\n\n" for p in payloads)


@OPENAI_BUGS
@FUZZ
@given(st.lists(OPENAI_CHUNK | JSON, max_size=5))
@example([ODD_USAGE])
def test_openai_parse_chunk_takes_any_json(chunks: list[Any]) -> None:
    state = openai_state()
    with suppress(ProviderError):
        for chunk in chunks:
            well_typed(openai_chat.parse_chunk(chunk, state))
        well_typed(openai_chat.finish_stream(state))


@OPENAI_BUGS
@pytest.mark.parametrize(
    "chunk",
    [
        ODD_USAGE,
        {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": float("inf")}},
        {"error": {"message": "x", "code": "²"}},
        {"error": {"message": "x", "code": "9" * 5000}},
        {"choices": [{"delta": {"content": [{"type": "text", "text": 5}]}}]},
    ],
    ids=["usage-str", "usage-inf", "code-superscript", "code-huge", "content-part-int"],
)
def test_openai_odd_chunks_are_typed_errors_or_events(chunk: dict[str, Any]) -> None:
    with suppress(ProviderError):
        well_typed(openai_chat.parse_chunk(chunk, openai_state()))


@known_bugs(OPENAI_CHUNKS, DEEP_JSON)
@FEW
@given(
    st.lists(OPENAI_CHUNK.map(dumps) | JUNK_TEXT | st.just("[DONE]"), max_size=6),
    st.sampled_from(["text/event-stream", "application/json", "text/html"]),
)
@example([dumps(ODD_USAGE), "[DONE]"], "text/event-stream")
def test_openai_wire_takes_any_body(payloads: list[str], content_type: str) -> None:
    body = sse(payloads) if content_type == "text/event-stream" else "\n".join(payloads)
    streamed(openai_chat.OpenAIChatWire(PROVIDER, client=client(body, content_type)))


@FEW
@given(
    st.lists(openai_chunk(lenient=False).map(dumps) | st.text(max_size=60), max_size=6),
    st.sampled_from(["text/event-stream", "application/json"]),
)
def test_guard_openai_wire_takes_any_body_without_the_known_bugs(
    payloads: list[str], content_type: str
) -> None:
    body = sse(payloads) if content_type == "text/event-stream" else "\n".join(payloads)
    streamed(openai_chat.OpenAIChatWire(PROVIDER, client=client(body, content_type)))


@DEEP_JSON_BUG
def test_openai_wire_takes_deeply_nested_json() -> None:
    body = sse([DEEP])
    streamed(openai_chat.OpenAIChatWire(PROVIDER, client=client(body, "text/event-stream")))


# -- Anthropic: SSE ------------------------------------------------------------------

EVENT_TYPES = st.sampled_from(
    [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
        "error",
    ]
)


def anthropic_payload(index: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """An event's data, its block `index` drawn from `index`."""
    block = shaped(
        {
            "type": st.sampled_from(["text", "tool_use", "thinking"]) | JSON,
            "text": TEXTS,
            "id": TEXTS | JSON,
            "name": TEXTS | JSON,
            "input": JSON,
        }
    )
    delta = shaped(
        {
            "type": st.sampled_from(["text_delta", "input_json_delta", "thinking_delta"]) | JSON,
            "text": TEXTS | JSON,
            "partial_json": TEXTS | JSON,
            "stop_reason": JSON,
        }
    )
    return shaped(
        {
            "type": EVENT_TYPES | JSON,
            "index": index,
            "message": shaped({"usage": usage(COUNTS | JSON) | JSON}) | JSON,
            "content_block": block | JSON,
            "delta": delta | JSON,
            "usage": shaped({"output_tokens": COUNTS | JSON, "input_tokens": COUNTS}) | JSON,
            "error": shaped({"type": TEXTS, "message": TEXTS}) | JSON,
        }
    )


SMALL_INDEX = st.integers(min_value=0, max_value=2)
ANTHROPIC_EVENT = st.tuples(
    EVENT_TYPES | TEXTS,
    anthropic_payload(SMALL_INDEX | JSON).map(dumps) | JSON.map(dumps) | JUNK_TEXT,
)
UNHASHABLE_INDEX = dumps(
    {"type": "content_block_delta", "index": [0], "delta": {"type": "input_json_delta"}}
)
ANTHROPIC_BUG = known_bugs(ANTHROPIC_INDEX)


def anthropic_state() -> anthropic.StreamState:
    return anthropic.StreamState(PROVIDER, model="some-model")


def anthropic_sse(events: list[tuple[str, str]]) -> str:
    return "".join(f"event: {name}\ndata: {data}\n\n" for name, data in events)


@known_bugs(ANTHROPIC_INDEX, DEEP_JSON)
@FUZZ
@given(st.lists(ANTHROPIC_EVENT, max_size=6))
@example([("content_block_delta", UNHASHABLE_INDEX)])
def test_anthropic_parse_event_takes_any_data(events: list[tuple[str, str]]) -> None:
    state = anthropic_state()
    for name, data in events:
        with suppress(ProviderError):
            well_typed(anthropic.parse_event(name, data, state))


@ANTHROPIC_BUG
def test_anthropic_delta_with_an_unhashable_index() -> None:
    with suppress(ProviderError):
        anthropic.parse_event("content_block_delta", UNHASHABLE_INDEX, anthropic_state())


@DEEP_JSON_BUG
def test_anthropic_parse_event_takes_deeply_nested_json() -> None:
    with pytest.raises(ProviderError):
        anthropic.parse_event("message_start", DEEP, anthropic_state())


@known_bugs(ANTHROPIC_INDEX, DEEP_JSON)
@FEW
@given(st.lists(ANTHROPIC_EVENT, max_size=6), st.booleans())
@example(events=[("content_block_delta", UNHASHABLE_INDEX)], as_sse=True)
def test_anthropic_wire_takes_any_body(events: list[tuple[str, str]], as_sse: bool) -> None:
    content_type = "text/event-stream" if as_sse else "application/json"
    wire = anthropic.AnthropicWire(PROVIDER, client=client(anthropic_sse(events), content_type))
    streamed(wire)


@FEW
@given(
    st.lists(
        st.tuples(
            EVENT_TYPES | TEXTS,
            anthropic_payload(SMALL_INDEX | st.none() | TEXTS).map(dumps) | st.text(max_size=60),
        ),
        max_size=8,
    )
)
def test_guard_anthropic_wire_takes_any_body_with_hashable_indices(
    events: list[tuple[str, str]],
) -> None:
    body = anthropic_sse(events)
    streamed(anthropic.AnthropicWire(PROVIDER, client=client(body, "text/event-stream")))
