"""The stream parsers take anything a server sends: events of the right types, or a ProviderError.

Each wire is fuzzed twice: its parse function with arbitrary JSON (shaped like the
provider's chunks, and not), and the whole wire with arbitrary text as the body of
a 200 answer (httpx's MockTransport: no sockets), so line splitting, SSE framing
and JSON decoding are covered too. No input may raise anything but a ProviderError.

Then what every wire reads, whatever it parses: a body cut into any pieces and
compressed reads as the whole; a line or event without end, or a compressed bomb,
is refused at its cap having read no more than it; keep-alive bytes without end
time out. Bugs the properties found (all fixed since) are kept as `found_bugs`
marks with the example that showed each.
"""

from __future__ import annotations

import asyncio
import gzip
import itertools
import json
import zlib
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from contextlib import suppress
from typing import Any

import httpx
import pytest
from hypothesis import event as tally
from hypothesis import example, given
from hypothesis import strategies as st

from routing.errors import ProviderError, TimedOut, TooLarge
from routing.models import ProviderConfig
from routing.presets import preset_for
from routing.transcript import user_message
from routing.wires import anthropic, ollama, openai_chat
from routing.wires.base import ChatRequest, Done, StreamEvent, TextDelta, ToolCallEvent, Usage, Wire
from routing.wires.bounded import ERROR_BODY_CAP, EVENT_CAP, MB
from tests.events import collect
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


def outcome(wire: Wire) -> list[StreamEvent] | ProviderError:
    """Everything the wire yields for one request, or the ProviderError it fails with."""

    async def run() -> list[StreamEvent]:
        try:
            return await collect(wire.stream(REQUEST))
        finally:
            await wire.aclose()

    try:
        events = asyncio.run(run())
    except ProviderError as error:
        assert isinstance(error.message, str) and error.message
        return error
    well_typed(events)
    assert events and isinstance(events[-1], Done)  # a stream that ends without one raised
    return events


def streamed(wire: Wire) -> list[StreamEvent]:
    """Everything the wire yields for one request, or [] when it fails the typed way."""
    result = outcome(wire)
    return [] if isinstance(result, ProviderError) else result


Body = str | bytes | Callable[[], Iterable[bytes]]


async def _arriving(pieces: Iterable[bytes]) -> AsyncIterator[bytes]:
    for piece in pieces:
        await asyncio.sleep(0)  # as a socket read would, letting timers run
        yield piece


def client(
    body: Body, content_type: str, *, status: int = 200, encoding: str = ""
) -> httpx.AsyncClient:
    """A client whose every request gets this answer, streamed in pieces through no socket.
    `body`: the text, bytes, or a function giving the pieces afresh for each request."""
    headers = {"content-type": content_type} | ({"content-encoding": encoding} if encoding else {})
    if isinstance(body, str):
        body = body.encode("utf-8", "surrogatepass")
    pieces = body if callable(body) else (lambda: [body])

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, headers=headers, content=_arriving(pieces()))

    return httpx.AsyncClient(transport=httpx.MockTransport(answer), trust_env=False)


# -- Ollama: NDJSON ------------------------------------------------------------------


def ollama_line() -> st.SearchStrategy[dict[str, Any]]:
    """A line of /api/chat's stream."""
    counts = COUNTS | JSON
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


OLLAMA_LINE = ollama_line()
ODD_COUNT = {"done": True, "prompt_eval_count": "many", "eval_count": 1}
OLLAMA_BUG = known_bugs(OLLAMA_COUNTS)
# A whole answer as Ollama streams it: words, then the line that says it is done.
OLLAMA_ANSWER = st.builds(
    lambda words, end: (
        [dumps({"message": {"role": "assistant", "content": w}}) for w in words]
        + [dumps({"done": True, **end})]
    ),
    st.lists(TEXTS, max_size=4),
    st.fixed_dictionaries(
        {},
        optional={
            "done_reason": st.sampled_from(["stop", "length"]),
            "prompt_eval_count": COUNTS,
            "eval_count": COUNTS,
        },
    ),
)


def ollama_events(line: Any, calls: int = 0) -> list[StreamEvent]:
    """The events of one line, checked; [] when it is refused the typed way."""
    try:
        events = ollama.parse_chunk(line, provider_id="fuzz", calls_so_far=calls)
    except ProviderError:
        return []
    well_typed(events)
    as_the_line_says(line, events, calls)
    return events


def count_of(value: Any) -> int:
    """A count as a line gives it: a non-negative integer, else none (0)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def as_the_line_says(line: dict[str, Any], events: list[StreamEvent], calls: int) -> None:
    """A line read is its words, then its tool calls (numbered on from `calls` where they
    have no id), then, when it is the last, its usage and why it ended."""
    message = line.get("message") or {}
    text, asked = message.get("content") or "", message.get("tool_calls") or []
    done = [Usage, Done] if line.get("done") else []
    assert [type(e) for e in events] == [TextDelta] * bool(text) + [ToolCallEvent] * len(
        asked
    ) + done
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == text
    made = [e.call for e in events if isinstance(e, ToolCallEvent)]
    for n, (call, raw) in enumerate(zip(made, asked, strict=True), start=calls):
        assert call.name == raw["function"]["name"]
        assert call.id == (
            raw["id"] if isinstance(raw.get("id"), str) and raw["id"] else f"call_{n}"
        )
    if done:
        usage, end = events[-2:]
        assert isinstance(usage, Usage) and isinstance(end, Done)
        assert (usage.input_tokens, usage.output_tokens) == (
            count_of(line.get("prompt_eval_count")),
            count_of(line.get("eval_count")),
        )
        assert end.reason == str(line.get("done_reason") or "stop")


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
@given(st.lists(OLLAMA_LINE.map(dumps) | JUNK_TEXT, max_size=6) | OLLAMA_ANSWER)
@example([dumps(ODD_COUNT)])
def test_ollama_wire_takes_any_body(lines: list[str]) -> None:
    said = outcome(ollama.OllamaWire(PROVIDER, client=ndjson(lines)))
    assert_as_parsed(said, ollama_stream_of(lines))


def assert_as_parsed(
    said: list[StreamEvent] | ProviderError, parsed: list[StreamEvent] | None
) -> None:
    """The wire yields what parsing its pieces one by one gives (`parsed`), or fails where
    that fails (None): the framing, decoding and HTTP around the parser add and lose nothing."""
    if parsed is None:
        assert isinstance(said, ProviderError), said
    else:
        assert said == parsed


def ollama_stream_of(lines: list[str]) -> list[StreamEvent] | None:
    """Each non-blank line's events, up to the first Done; None where the wire must fail
    (a line that is not JSON or is refused, or no Done before the end)."""
    events: list[StreamEvent] = []
    calls = 0
    for line in "\n".join(lines).split("\n"):  # NDJSON ends a line at \n only
        if not line.strip():
            continue
        try:
            parsed = ollama.parse_chunk(json.loads(line), provider_id="fuzz", calls_so_far=calls)
        except (ValueError, RecursionError, ProviderError):
            return None
        for event in parsed:
            calls += isinstance(event, ToolCallEvent)
            events.append(event)
            if isinstance(event, Done):
                return events
    return None


@DEEP_JSON_BUG
def test_ollama_wire_takes_deeply_nested_json() -> None:
    streamed(ollama.OllamaWire(PROVIDER, client=ndjson([DEEP])))


# -- the OpenAI shape: SSE -----------------------------------------------------------


def usage(counts: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return shaped({"prompt_tokens": counts, "completion_tokens": counts, "total_tokens": COUNTS})


def openai_chunk() -> st.SearchStrategy[dict[str, Any]]:
    """A chunk of the OpenAI shape's stream."""
    anything = JSON
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
    codes = st.integers(400, 599) | TEXTS
    return shaped(
        {
            "choices": st.lists(choice, max_size=2) | anything,
            "usage": counts | anything,
            "x_groq": shaped({"usage": counts}),
            "error": shaped({"message": TEXTS, "code": codes}) | anything,
        }
    )


OPENAI_CHUNK = openai_chunk()
ODD_USAGE = {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": "seven"}}
OPENAI_BUGS = known_bugs(OPENAI_CHUNKS)
# A whole answer as the OpenAI shape streams it: words, the finish reason, and [DONE] or not.
OPENAI_ANSWER = st.builds(
    lambda words, reason, done: (
        [dumps({"choices": [{"index": 0, "delta": {"content": w}}]}) for w in words]
        + [dumps({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})]
        + ["[DONE]"] * done
    ),
    st.lists(TEXTS, max_size=4),
    st.sampled_from(["stop", "length"]),
    st.booleans(),
)


def openai_state() -> openai_chat.StreamState:
    return openai_chat.StreamState(
        provider=PROVIDER, preset=preset_for("custom"), model="some-model"
    )


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
            events = openai_chat.parse_chunk(chunk, state)
            well_typed(events)
            assert text_of(events) == openai_words_in(chunk)
            assert not any(isinstance(e, Done | Usage) for e in events)  # those close the stream
        closing = openai_chat.finish_stream(state)
        well_typed(closing)
        assert isinstance(closing[-1], Done)
        assert [type(e) for e in closing if not isinstance(e, ToolCallEvent)] in (
            [Done],
            [Usage, Done],
        )


def text_of(events: Iterable[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def openai_words_in(chunk: dict[str, Any]) -> str:
    """The words a chunk carries: its first choice's content, or the text of its parts."""
    words = ""
    for choice in chunk.get("choices") or []:
        if choice.get("index", 0) != 0:
            continue
        content = (choice.get("delta") or choice.get("message") or {}).get("content")
        if isinstance(content, list):
            content = "".join(
                p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
            )
        words += content or ""
    return words


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
    st.lists(OPENAI_CHUNK.map(dumps) | JUNK_TEXT | st.just("[DONE]"), max_size=6) | OPENAI_ANSWER,
    st.sampled_from(["text/event-stream", "application/json", "text/html"]),
)
@example([dumps(ODD_USAGE), "[DONE]"], "text/event-stream")
def test_openai_wire_takes_any_body(payloads: list[str], content_type: str) -> None:
    body = sse(payloads) if content_type == "text/event-stream" else "\n".join(payloads)
    said = outcome(openai_chat.OpenAIChatWire(PROVIDER, client=client(body, content_type)))
    streaming = content_type == "text/event-stream"
    if streaming and any(end in p for p in payloads for end in "\r\n"):
        return  # a payload broken over lines: its pieces are events of their own
    if not streaming and body.lstrip().startswith("data:"):
        return  # SSE under another content type, read line by line
    assert_as_parsed(said, openai_stream_of(payloads, streaming=streaming))


def openai_stream_of(payloads: list[str], *, streaming: bool) -> list[StreamEvent] | None:
    """The chunks' events in order, then the closing ones (at [DONE], or at the end once a
    finish reason came); a whole body is one chunk. None where the wire must fail."""
    state = openai_state()
    try:
        if not streaming:
            return openai_chat.parse_chunk(json.loads("\n".join(payloads)), state) + (
                openai_chat.finish_stream(state)
            )
        events: list[StreamEvent] = []
        for payload in payloads:
            data = payload.strip()
            if data == "[DONE]":
                return events + openai_chat.finish_stream(state)
            if data:
                events += openai_chat.parse_chunk(json.loads(data), state)
        if state.finish_reason is None:
            return None
        return events + openai_chat.finish_stream(state)
    except (ValueError, RecursionError, ProviderError):
        return None


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


def anthropic_payload() -> st.SearchStrategy[dict[str, Any]]:
    """An event's data."""
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
            "index": st.integers(min_value=0, max_value=2) | JSON,
            "message": shaped({"usage": usage(COUNTS | JSON) | JSON}) | JSON,
            "content_block": block | JSON,
            "delta": delta | JSON,
            "usage": shaped({"output_tokens": COUNTS | JSON, "input_tokens": COUNTS}) | JSON,
            "error": shaped({"type": TEXTS, "message": TEXTS}) | JSON,
        }
    )


ANTHROPIC_EVENT = st.tuples(
    EVENT_TYPES | TEXTS, anthropic_payload().map(dumps) | JSON.map(dumps) | JUNK_TEXT
)
UNHASHABLE_INDEX = dumps(
    {"type": "content_block_delta", "index": [0], "delta": {"type": "input_json_delta"}}
)
ANTHROPIC_BUG = known_bugs(ANTHROPIC_INDEX)


def _anthropic_answer(words: list[str], stop: str) -> list[tuple[str, str]]:
    """The events of a whole answer of words, as the Messages API streams it."""
    said: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"usage": {"input_tokens": 3}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        *(
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": w}}
            for w in words
        ),
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 5}},
        {"type": "message_stop"},
    ]
    return [(event["type"], dumps(event)) for event in said]


ANTHROPIC_ANSWER = st.builds(
    _anthropic_answer, st.lists(TEXTS, max_size=4), st.sampled_from(["end_turn", "max_tokens"])
)


def anthropic_state() -> anthropic.StreamState:
    return anthropic.StreamState(provider=PROVIDER, model="some-model")


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
            said = anthropic.parse_event(name, data, state)
            well_typed(said)
            said_by_its_kind(name, json.loads(data) if data else {}, said)


# What each kind of event may say: words at a text block's start or delta, a tool call at
# its block's end, and the usage and the end only at message_stop.
SAYS: dict[str, list[list[type[StreamEvent]]]] = {
    "content_block_start": [[], [TextDelta]],
    "content_block_delta": [[], [TextDelta]],
    "content_block_stop": [[], [ToolCallEvent]],
    "message_stop": [[Usage, Done]],
}


def said_by_its_kind(name: str, payload: dict[str, Any], said: list[StreamEvent]) -> None:
    kind = str(payload.get("type") or name)
    assert [type(e) for e in said] in SAYS.get(kind, [[]])


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
@given(st.lists(ANTHROPIC_EVENT, max_size=6) | ANTHROPIC_ANSWER, st.booleans())
@example(events=[("content_block_delta", UNHASHABLE_INDEX)], as_sse=True)
def test_anthropic_wire_takes_any_body(events: list[tuple[str, str]], as_sse: bool) -> None:
    content_type = "text/event-stream" if as_sse else "application/json"
    wire = anthropic.AnthropicWire(PROVIDER, client=client(anthropic_sse(events), content_type))
    said = outcome(wire)
    if not as_sse:  # a 200 that is no event stream is an error body or a page, never an answer
        assert isinstance(said, ProviderError), said
    elif not any(end in part for event in events for part in event for end in "\r\n"):
        assert_as_parsed(said, anthropic_stream_of(events))


def anthropic_stream_of(events: list[tuple[str, str]]) -> list[StreamEvent] | None:
    """Each event's events, up to message_stop; None where the wire must fail."""
    state = anthropic_state()
    parsed: list[StreamEvent] = []
    try:
        for name, data in events:
            parsed += anthropic.parse_event(name, data, state)
            if state.finished:
                return parsed
    except ProviderError:
        pass
    return None


# -- what every wire reads: any pieces, compressed, without end ------------------

CONTENT_TYPES = {
    "ollama": "application/x-ndjson",
    "openai": "text/event-stream",
    "anthropic": "text/event-stream",
}
SSE_ENDS = st.sampled_from(["\n", "\r\n", "\r"])
BODIES: dict[str, st.SearchStrategy[str]] = {
    "ollama": st.lists(OLLAMA_LINE.map(dumps) | JUNK_TEXT, max_size=6).map("\n".join),
    "openai": st.builds(
        lambda payloads, end: sse(payloads).replace("\n", end),
        st.lists(OPENAI_CHUNK.map(dumps) | JUNK_TEXT | st.just("[DONE]"), max_size=6),
        SSE_ENDS,
    ),
    "anthropic": st.builds(
        lambda events, end: anthropic_sse(events).replace("\n", end),
        st.lists(ANTHROPIC_EVENT, max_size=6),
        SSE_ENDS,
    ),
}
A_BODY = st.sampled_from(sorted(BODIES)).flatmap(
    lambda shape: st.tuples(st.just(shape), BODIES[shape])
)
PACKINGS: dict[str, Callable[[bytes], bytes]] = {
    "identity": lambda data: data,
    "gzip": gzip.compress,
    "deflate": zlib.compress,
}
BLOCK = 64 * 1024


def wire(shape: str, answers: httpx.AsyncClient, idle_limit: float | None = None) -> Wire:
    """The shape's wire, answered by `answers`."""
    if shape == "ollama":
        return ollama.OllamaWire(PROVIDER, client=answers, idle_limit=idle_limit)
    if shape == "openai":
        return openai_chat.OpenAIChatWire(PROVIDER, client=answers, idle_limit=idle_limit)
    return anthropic.AnthropicWire(PROVIDER, client=answers, idle_limit=idle_limit)


def cut(data: bytes, at: Iterable[int], *, after_cr: bool) -> list[bytes]:
    """`data` in pieces, cut at each of `at` (within it), and after each \\r if `after_cr`."""
    ends = [n + 1 for n, byte in enumerate(data) if byte == 13] if after_cr else []
    points = sorted({0, len(data), *ends, *(min(n, len(data)) for n in at)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


def same(a: list[StreamEvent] | ProviderError, b: list[StreamEvent] | ProviderError) -> bool:
    if isinstance(a, ProviderError) or isinstance(b, ProviderError):
        return type(a) is type(b) and str(a) == str(b)
    return a == b


@FEW
@given(
    A_BODY,
    st.lists(st.integers(min_value=0, max_value=3000), max_size=8),
    st.sampled_from(sorted(PACKINGS)),
    st.booleans(),
)
def test_a_body_in_any_pieces_and_compressed_reads_as_the_whole(
    shaped_body: tuple[str, str], at: list[int], packing: str, after_cr: bool
) -> None:
    shape, text = shaped_body
    data = text.encode("utf-8", "surrogatepass")
    whole = outcome(wire(shape, client(data, CONTENT_TYPES[shape])))
    pieces = cut(PACKINGS[packing](data), at, after_cr=after_cr)
    answers = client(lambda: pieces, CONTENT_TYPES[shape], encoding=packing)
    assert same(outcome(wire(shape, answers)), whole)


def _endless(opening: bytes, block: bytes, pulled: list[int]) -> Callable[[], Iterator[bytes]]:
    def pieces() -> Iterator[bytes]:
        yield opening
        while True:
            pulled[0] += len(block)
            yield block

    return pieces


NO_LINE_END = st.binary(min_size=1, max_size=40).map(
    lambda b: b.replace(b"\n", b"").replace(b"\r", b"") or b"x"
)


@FEW
@given(A_BODY, NO_LINE_END, st.booleans(), st.sampled_from([200, 400, 500]))
def test_a_line_or_event_without_end_is_refused_having_read_no_more_than_its_cap(
    shaped_body: tuple[str, str], filler: bytes, as_event: bool, status: int
) -> None:
    shape, opening = shaped_body
    as_event = as_event and shape != "ollama"  # NDJSON has no events made of lines
    line = b"data: " + filler * (1000 // len(filler)) + b"\n"
    block = (line * (BLOCK // len(line))) if as_event else filler * (BLOCK // len(filler))
    pulled = [0]
    start = opening.encode("utf-8", "surrogatepass") + b"\n"
    answers = client(_endless(start, block, pulled), CONTENT_TYPES[shape], status=status)
    result = outcome(wire(shape, answers))
    tally(type(result).__name__)
    cap = EVENT_CAP if status == 200 else ERROR_BODY_CAP
    assert pulled[0] <= cap + 2 * len(block)  # stopped at the cap, not at the end of memory
    if not opening.strip():
        assert isinstance(result, TooLarge), result
    else:  # an earlier line may have ended the answer or failed it first
        assert isinstance(result, ProviderError) or isinstance(result[-1], Done)


@FEW
@given(A_BODY, st.sampled_from(["gzip", "deflate"]), st.sampled_from([200, 400, 500]))
def test_a_compressed_bomb_is_refused_having_inflated_little_more_than_its_cap(
    shaped_body: tuple[str, str], packing: str, status: int
) -> None:
    shape, opening = shaped_body
    inflated = [0]

    def bomb() -> Iterator[bytes]:
        packer = zlib.compressobj(wbits=zlib.MAX_WBITS | (16 if packing == "gzip" else 0))
        yield packer.compress(opening.encode("utf-8", "surrogatepass"))
        zeros = bytes(BLOCK * 4)
        while True:
            inflated[0] += len(zeros)
            if out := packer.compress(zeros):
                yield out

    answers = client(bomb, CONTENT_TYPES[shape], status=status, encoding=packing)
    result = outcome(wire(shape, answers))
    tally(type(result).__name__)
    cap = EVENT_CAP if status == 200 else ERROR_BODY_CAP
    # zlib emits a block per 4 MB of zeros: the server is that far ahead of what was sent.
    assert inflated[0] <= cap + 4 * MB + 2 * BLOCK * 4
    if status != 200:
        assert isinstance(result, TooLarge), result
    else:
        assert isinstance(result, ProviderError) or isinstance(result[-1], Done)


def _sse_comment(text: str) -> str:
    return f":{text}\n\n"


COMMENT = st.text(st.characters(blacklist_characters="\r\n"), max_size=20).map(_sse_comment)
KEEPALIVES: dict[str, st.SearchStrategy[str]] = {
    "ollama": st.sampled_from(
        [
            "\n",
            "\r\n",
            " \t\n",
            dumps({"message": {"role": "assistant", "content": ""}, "done": False}) + "\n",
            dumps({"model": "m", "message": {"content": None, "tool_calls": []}}) + "\n",
        ]
    ),
    "openai": COMMENT
    | st.sampled_from(
        [
            "\n",
            "data: \n\n",
            "data:\n\n",
            "id: 7\nretry: 10\n\n",
            'data: {"choices":[]}\n\n',
            'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}\n\n',
        ]
    ),
    "anthropic": COMMENT
    | st.sampled_from(
        [
            "\n",
            'event: ping\ndata: {"type": "ping"}\n\n',
            "event: something_newer\ndata: {}\n\n",
            'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
            '"content_block":{"type":"text","text":""}}\n\n',
        ]
    ),
}
A_FLOOD = st.sampled_from(sorted(KEEPALIVES)).flatmap(
    lambda shape: st.tuples(st.just(shape), st.lists(KEEPALIVES[shape], min_size=1, max_size=4))
)


@FEW
@given(A_FLOOD)
def test_keepalive_bytes_without_end_time_out(flood: tuple[str, list[str]]) -> None:
    shape, keepalives = flood
    pieces = [k.encode("utf-8", "surrogatepass") for k in keepalives]
    answers = client(lambda: itertools.cycle(pieces), CONTENT_TYPES[shape])
    result = outcome(wire(shape, answers, idle_limit=0.05))
    assert isinstance(result, TimedOut), result
