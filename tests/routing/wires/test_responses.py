"""The Responses wire against a real loopback server: exact request JSON, events, learning."""

from __future__ import annotations

import base64
import json
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.config import ConfigError, parse_config
from app.store import Store
from app.turn.events import TurnEnded, TurnEvent
from routing.capabilities import resolved
from routing.errors import (
    KeyProblem,
    MalformedResponse,
    ModelNotFound,
    PicturesRefused,
    RateLimited,
    ServerError,
)
from routing.models import ModelInfo, ProviderConfig
from routing.shaping import PictureLimits, aged_line, shape_messages
from routing.transcript import (
    CarriedPart,
    Message,
    NoticeKind,
    PdfPart,
    TextPart,
    ToolCall,
    ToolResult,
    user_message,
)
from routing.wires.base import (
    Carried,
    ChatRequest,
    Done,
    StreamEvent,
    TextDelta,
    ToolCallEvent,
    ToolSpec,
    Usage,
)
from routing.wires.openai_chat import OpenAIChatWire
from routing.wires.registry import make_wire
from routing.wires.responses import ResponsesWire, StreamState, parse_event
from routing.wires.responses_request import build_responses_body
from tests.events import collect
from tests.faults.cli import sightline
from tests.pdfs import text_pdf
from tests.pictures import make_picture
from tests.routing.wires.helpers import (
    PictureTool,
    failure,
    runner_turn,
    screenshot_steps,
    two_screenshots,
)
from tests.servers.openai_chat import FakeOpenAI
from tests.servers.openai_responses import FakeResponses, Reply, error_reply
from vision.pdf import open_pdf
from vision.pictures import Picture

KEY = "sk-test-responses"


def data_url(picture: Picture) -> str:
    return f"data:image/png;base64,{base64.b64encode(picture.data).decode()}"


def image(picture: Picture) -> dict[str, Any]:
    return {"type": "input_image", "image_url": data_url(picture), "detail": "auto"}


@pytest.fixture
def server() -> Iterator[FakeResponses]:
    with FakeResponses(api_key=KEY) as fake:
        yield fake


def wire_to(url: str, kind: str = "openai", pid: str = "oa") -> ResponsesWire:
    provider = ProviderConfig(pid, kind, url, api_key=KEY)
    return ResponsesWire(provider, timeout=5.0, retry_base_delay=0.01)


@pytest.fixture
async def wire(server: FakeResponses) -> AsyncIterator[ResponsesWire]:
    wire = wire_to(server.url)
    yield wire
    await wire.aclose()


def ask(text: str = "hi", model: str = "gpt-5-mini", **kw: Any) -> ChatRequest:
    return ChatRequest(model=model, messages=(user_message(text, kw.pop("pictures", ())),), **kw)


SHOT = ToolSpec(
    "screenshot",
    "A picture of the screen",
    {"type": "object", "properties": {"window": {"type": "string"}}},  # optional: not strict
)

# -- the request ------------------------------------------------------------------


async def test_text_exact_json_with_system_temperature_and_length(
    wire: ResponsesWire, server: FakeResponses
) -> None:
    """System as instructions, the chat's parameters by the API's names, stateless."""
    events = await collect(
        wire.stream(
            ask("hello", system="Be brief.", temperature=0.4, max_tokens=300, context_length=8)
        )
    )
    assert server.chat_requests() == [
        {
            "model": "gpt-5-mini",
            "instructions": "Be brief.",
            "input": [{"type": "message", "role": "user", "content": "hello"}],
            "temperature": 0.4,
            "max_output_tokens": 300,
            "stream": True,
            "store": False,
            "include": ["reasoning.encrypted_content"],
        }
    ]
    [request] = server.received(server.is_chat)
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["accept"] == "text/event-stream"
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "You said: hello"
    assert events[-2:] == [Usage(21, 9), Done("stop")]


async def test_nothing_is_sent_that_was_not_set(wire: ResponsesWire, server: FakeResponses) -> None:
    await collect(wire.stream(ask("hello")))
    [sent] = server.chat_requests()
    assert not {"instructions", "temperature", "max_output_tokens", "tools"} & set(sent)


async def test_an_attached_picture_exact_json(wire: ResponsesWire, server: FakeResponses) -> None:
    red = make_picture("red")
    await collect(wire.stream(ask("what is this?", pictures=(red,))))
    assert server.chat_requests()[0]["input"] == [
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "what is this?"}, image(red)],
        }
    ]


async def test_an_attached_pdf_goes_as_an_input_file(
    wire: ResponsesWire, server: FakeResponses
) -> None:
    pdf = open_pdf(text_pdf(["Invoice 42"]), name="invoice.pdf")
    message = Message("user", (TextPart("total?"), PdfPart(pdf)))
    events = await collect(wire.stream(ChatRequest("gpt-5-mini", (message,))))
    encoded = base64.b64encode(pdf.data).decode()
    assert server.chat_requests()[0]["input"] == [
        {
            "type": "message",
            "role": "user",
            "content": [
                {
                    "type": "input_file",
                    "filename": "invoice.pdf",
                    "file_data": f"data:application/pdf;base64,{encoded}",
                },
                {"type": "input_text", "text": "total?"},
            ],
        }
    ]
    assert "(I read invoice.pdf)" in "".join(e.text for e in events if isinstance(e, TextDelta))


TWO_PICTURES_STEP = two_screenshots("call_a", "call_b")


async def test_a_step_of_two_tool_pictures_goes_inside_the_outputs(
    wire: ResponsesWire, server: FakeResponses
) -> None:
    """Calls as function_call items, pictures in each output after its words, flat tools."""
    await collect(wire.stream(ChatRequest("gpt-5-mini", TWO_PICTURES_STEP, tools=(SHOT,))))
    body = server.chat_requests()[0]
    assert body["input"] == [
        {"type": "message", "role": "user", "content": "compare the windows"},
        {"type": "message", "role": "assistant", "content": "Looking."},
        {
            "type": "function_call",
            "call_id": "call_a",
            "name": "screenshot",
            "arguments": '{"window": "left"}',
        },
        {
            "type": "function_call",
            "call_id": "call_b",
            "name": "screenshot",
            "arguments": '{"window": "right"}',
        },
        {
            "type": "function_call_output",
            "call_id": "call_a",
            "output": [{"type": "input_text", "text": "left"}, image(make_picture("red"))],
        },
        {
            "type": "function_call_output",
            "call_id": "call_b",
            "output": [image(make_picture("blue"))],
        },
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "name": "screenshot",
            "description": "A picture of the screen",
            "parameters": {"type": "object", "properties": {"window": {"type": "string"}}},
            "strict": False,
        }
    ]


def test_text_only_outputs_are_plain_strings_and_errors_say_so() -> None:
    messages = (
        Message("assistant", (ToolCall("c1", "f", {}),)),
        Message("tool", (ToolResult("c1", "f", (TextPart("no such file"),), is_error=True),)),
    )
    body = build_responses_body(ChatRequest("m", messages), "p:m")
    assert body["input"] == [
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "Error: no such file"},
    ]


async def test_five_tool_pictures_age_to_the_newest_three(
    wire: ResponsesWire, server: FakeResponses
) -> None:
    """Shaped as the turn shapes them: the two oldest become a line, in a plain string."""
    colours = ["red", "orange", "yellow", "green", "blue"]
    shaped = shape_messages(screenshot_steps("watch the screen", colours), PictureLimits())
    await collect(wire.stream(ChatRequest("gpt-5-mini", shaped)))
    outputs = [i["output"] for i in server.chat_requests()[0]["input"] if "output" in i]
    line = aged_line(ToolResult("c0", "screenshot"))
    assert outputs == [
        f"red\n{line}",
        f"orange\n{line}",
        *([{"type": "input_text", "text": c}, image(make_picture(c))] for c in colours[2:]),
    ]


# -- reasoning items --------------------------------------------------------------

REASONING = {
    "id": "rs_1",
    "type": "reasoning",
    "summary": [{"type": "summary_text", "text": "check both"}],
    "encrypted_content": "gAAAAopaque",
}


def test_reasoning_items_go_back_unchanged_before_what_followed_them() -> None:
    carried = CarriedPart("responses", "oa:gpt-5-mini", {"items": [REASONING]})
    other = CarriedPart("responses", "oa:other-model", {"items": [{"id": "rs_x"}]})
    gemini = CarriedPart("gemini", "oa:gpt-5-mini", {"parts": []})
    answer = Message("assistant", (ToolCall("c1", "f", {"a": 1}), carried, other, gemini))
    messages = (user_message("go"), answer, Message("tool", (ToolResult("c1", "f"),)))
    body = build_responses_body(ChatRequest("gpt-5-mini", messages), "oa:gpt-5-mini")
    assert body["input"] == [
        {"type": "message", "role": "user", "content": "go"},
        REASONING,
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": '{"a": 1}'},
        {"type": "function_call_output", "call_id": "c1", "output": ""},
    ]


async def turn(
    server: FakeResponses, tmp_path: Path, text: str, model: str, **kw: Any
) -> tuple[Store, list[TurnEvent]]:
    """One turn of the runner against the server, into a real store."""
    return await runner_turn(
        ProviderConfig("oa", "openai", server.url, api_key=KEY), tmp_path, text, model, **kw
    )


async def test_a_turn_hands_its_reasoning_back_and_keeps_it(
    server: FakeResponses, tmp_path: Path
) -> None:
    """Through the runner and the store: the step after a call sends the reasoning item."""
    call = {"call_id": "call_1", "name": "screenshot", "arguments": {}}
    server.enqueue(Reply(reasoning="look first", tool_calls=[call]), Reply(text="Green."))
    store, events = await turn(
        server, tmp_path, "what colour?", "oa:gpt-5-mini", tools=[PictureTool(SHOT)]
    )
    assert isinstance(events[-1], TurnEnded) and events[-1].error is None
    _, second = server.chat_requests()
    [reasoning] = [i for i in second["input"] if i.get("type") == "reasoning"]
    assert reasoning == {
        "id": reasoning["id"],
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": "look first"}],
        "encrypted_content": "gAAAA" + base64.b64encode(b"look first").decode(),
    }
    assert [i.get("type") for i in second["input"]] == [
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
    ]
    assert second["input"][-1]["output"] == [
        {"type": "input_text", "text": "the screen"},
        image(make_picture("green")),
    ]
    [cid] = [c.id for c in store.conversations.list()]
    answer = store.messages(cid)[1]
    assert answer.carried("responses", "oa:gpt-5-mini")[0].data == {"items": [reasoning]}
    assert answer.text == ""  # never shown
    store.close()


async def test_a_blind_model_refusing_a_picture_heals_in_words(
    server: FakeResponses, tmp_path: Path
) -> None:
    store, events = await turn(
        server, tmp_path, "what is it?", "oa:text-only-7b", pictures=(make_picture("red"),)
    )
    assert isinstance(events[-1], TurnEnded) and events[-1].error is None
    asked = [body for body in server.chat_requests() if body["model"] == "text-only-7b"]
    # Its server refused the reasoning include (learned), then the picture; then, after a
    # model that sees described it, the question came again in words.
    *refused, healed = asked
    assert [r.get("include") for r in refused] == [["reasoning.encrypted_content"], None]
    assert all(r["input"][0]["content"][1]["type"] == "input_image" for r in refused)
    assert isinstance(healed["input"][0]["content"], str)  # the picture in words now
    [cid] = [c.id for c in store.conversations.list()]
    kinds = [i.item.kind for i in store.items(cid) if hasattr(i.item, "kind")]
    assert NoticeKind.HEAL in kinds
    assert store.learned.blind() == {"oa:text-only-7b"}
    store.close()


# -- learning what a server refuses --------------------------------------------------


async def test_a_server_taking_words_only_gets_the_trailing_user_message_once() -> None:
    with FakeResponses(lists_in_outputs=False) as server:
        wire = wire_to(server.url, kind="custom", pid="mine")
        try:
            events = await collect(wire.stream(ChatRequest("gpt-5-mini", TWO_PICTURES_STEP)))
            await collect(wire.stream(ChatRequest("gpt-5-mini", TWO_PICTURES_STEP)))
        finally:
            await wire.aclose()
    refused, flat, remembered = server.chat_requests()
    assert isinstance(refused["input"][-1]["output"], list)
    assert flat == remembered  # asked in the words-only form from then on
    assert flat["input"][-3:] == [
        {"type": "function_call_output", "call_id": "call_a", "output": "left"},
        {"type": "function_call_output", "call_id": "call_b", "output": ""},
        {
            "type": "message",
            "role": "user",
            "content": [
                {
                    "type": "input_text",
                    "text": "[Tool output, not a message from the person: pictures returned by "
                    "the tool calls above.]\nPicture 1: from screenshot, call call_a (red.png)."
                    "\nPicture 2: from screenshot, call call_b (blue.png).",
                },
                image(make_picture("red")),
                image(make_picture("blue")),
            ],
        },
    ]
    assert isinstance(events[-1], Done)


async def test_a_model_without_reasoning_is_asked_again_without_the_include(
    wire: ResponsesWire, server: FakeResponses
) -> None:
    await collect(wire.stream(ask("hi", model="gpt-4.1-mini")))
    await collect(wire.stream(ask("again", model="gpt-4.1-mini")))
    await collect(wire.stream(ask("and you", model="gpt-5-mini")))
    includes = [body.get("include") for body in server.chat_requests()]
    assert includes == [
        ["reasoning.encrypted_content"],
        None,
        None,
        ["reasoning.encrypted_content"],
    ]


async def test_a_refusal_that_teaches_nothing_is_not_asked_again(
    wire: ResponsesWire, server: FakeResponses
) -> None:
    server.enqueue(error_reply(400, "Unknown parameter: 'nope'.", "unknown_parameter"))
    _, error = await failure(wire.stream(ask()))
    assert error.kind == "request" and len(server.chat_requests()) == 1


# -- the stream ----------------------------------------------------------------------


async def test_calls_text_usage_and_done(wire: ResponsesWire, server: FakeResponses) -> None:
    calls = [
        {"call_id": "call_x", "name": "screenshot", "arguments": {"window": "a" * 20}},
        {"call_id": "call_y", "name": "screenshot", "arguments": {}},
    ]
    server.enqueue(Reply(text="Two looks.", tool_calls=calls, args_chunk=3))
    events = await collect(wire.stream(ask()))
    assert [e for e in events if not isinstance(e, TextDelta)] == [
        ToolCallEvent(ToolCall("call_x", "screenshot", {"window": "a" * 20})),
        ToolCallEvent(ToolCall("call_y", "screenshot", {})),
        Usage(21, 9),
        Done("tool_calls"),
    ]


def state() -> StreamState:
    return StreamState(
        provider=ProviderConfig("oa", "openai", "https://api.openai.com/v1"), source="oa:m"
    )


def test_interleaved_argument_deltas_join_per_item_into_their_call_id() -> None:
    s = state()
    events: list[StreamEvent] = []
    for payload in [
        {
            "type": "response.output_item.added",
            "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f"},
        },
        {
            "type": "response.output_item.added",
            "item": {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "g"},
        },
        {"type": "response.function_call_arguments.delta", "item_id": "fc_2", "delta": '{"b"'},
        {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": '{"a":'},
        {"type": "response.function_call_arguments.delta", "item_id": "fc_2", "delta": ":2}"},
        {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": "1}"},
        {"type": "response.completed", "response": {"usage": {"input_tokens": 3}}},
    ]:
        events += parse_event(payload, s)
    assert events == [
        ToolCallEvent(ToolCall("call_1", "f", {"a": 1})),
        ToolCallEvent(ToolCall("call_2", "g", {"b": 2})),
        Usage(3, 0),
        Done("tool_calls"),
    ]


def test_an_incomplete_answer_is_done_for_its_length() -> None:
    s = state()
    parse_event({"type": "response.output_text.delta", "item_id": "m", "delta": "Half"}, s)
    end = {
        "type": "response.incomplete",
        "response": {"incomplete_details": {"reason": "max_output_tokens"}},
    }
    assert parse_event(end, s) == [Done("length")]


def test_a_server_that_sends_only_the_end_gives_its_whole_output() -> None:
    output = [
        REASONING,
        {"type": "message", "id": "m1", "content": [{"type": "output_text", "text": "Hi."}]},
        {"type": "function_call", "id": "f1", "call_id": "c9", "name": "f", "arguments": "[1"},
    ]
    events = parse_event({"type": "response.completed", "response": {"output": output}}, state())
    assert events == [
        TextDelta("Hi."),
        ToolCallEvent(ToolCall("c9", "f", {"_raw": "[1"})),
        Carried(CarriedPart("responses", "oa:m", {"items": [REASONING]})),
        Done("tool_calls"),
    ]


def test_reasoning_nested_past_the_bound_is_never_kept() -> None:
    deep: Any = {}
    for _ in range(100):
        deep = {"x": deep}
    item = {"type": "reasoning", "id": "rs", "summary": [], "deep": deep}
    s = state()
    parse_event({"type": "response.output_item.done", "item": item}, s)
    assert parse_event({"type": "response.completed", "response": {}}, s) == [Done("stop")]


async def test_words_then_an_error_event(wire: ResponsesWire, server: FakeResponses) -> None:
    error = {"code": "server_error", "message": "The model had an error.", "param": None}
    server.enqueue(Reply(text="Partial", midstream_error=error))
    words, failed = await failure(wire.stream(ask()))
    assert words == "Partial" and isinstance(failed, ServerError)


async def test_a_failed_response_with_an_image_code_is_a_picture_refusal(
    wire: ResponsesWire, server: FakeResponses
) -> None:
    server.enqueue(Reply(failed={"code": "invalid_image", "message": "Invalid image."}))
    _, error = await failure(wire.stream(ask(pictures=(make_picture(),))))
    assert isinstance(error, PicturesRefused) and "invalid_image" in error.message


@pytest.mark.parametrize("code", ["image_too_large", "unsupported_image_media_type"])
async def test_image_error_codes_over_http_are_picture_refusals(
    wire: ResponsesWire, server: FakeResponses, code: str
) -> None:
    server.enqueue(error_reply(400, "The image could not be used.", code))
    _, error = await failure(wire.stream(ask(pictures=(make_picture(),))))
    assert isinstance(error, PicturesRefused)
    assert len(server.chat_requests()) == 1  # the turn heals; the wire asks no more


async def test_a_rate_limit_inside_the_stream_is_waited_out(
    wire: ResponsesWire, server: FakeResponses
) -> None:
    limited = {"code": "rate_limit_exceeded", "message": "Rate limit reached. Try again in 0.01s."}
    server.enqueue(Reply(failed=limited), Reply(text="ok"))
    events = await collect(wire.stream(ask()))
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["ok"]
    assert len(server.chat_requests()) == 2


async def test_a_stream_without_its_end_is_cut_off(
    wire: ResponsesWire, server: FakeResponses
) -> None:
    server.enqueue(Reply(text="So far", end=False))
    words, error = await failure(wire.stream(ask()))
    assert words == "So far" and isinstance(error, ServerError) and "cut off" in error.message


async def test_an_event_that_is_not_json(wire: ResponsesWire, server: FakeResponses) -> None:
    server.enqueue(Reply(text="Before", raw_events=["{not json"]))
    words, error = await failure(wire.stream(ask()))
    assert words == "Before" and isinstance(error, MalformedResponse)
    assert "Responses format" in error.message and "{not json" in error.detail


async def test_a_whole_answer_when_stream_is_ignored(server: FakeResponses) -> None:
    wire = wire_to(server.url)
    try:
        answer = wire._whole_body(  # what read_events does with a JSON answer
            json.dumps(
                {
                    "object": "response",
                    "status": "completed",
                    "output": [
                        {"type": "message", "content": [{"type": "output_text", "text": "Yes"}]}
                    ],
                    "usage": {"input_tokens": 2, "output_tokens": 1},
                }
            ),
            StreamState(provider=wire.located, source="oa:m"),
        )
    finally:
        await wire.aclose()
    assert answer == [TextDelta("Yes"), Usage(2, 1), Done("stop")]


# -- errors, models, choosing the wire --------------------------------------------------


async def test_a_wrong_key(server: FakeResponses) -> None:
    wire = ResponsesWire(ProviderConfig("oa", "openai", server.url, api_key="sk-wrong"))
    try:
        _, error = await failure(wire.stream(ask()))
    finally:
        await wire.aclose()
    assert isinstance(error, KeyProblem) and "OPENAI_API_KEY" in error.message
    assert "sk-wrong" not in error.message


async def test_an_unknown_model_lists_what_there_is(wire: ResponsesWire) -> None:
    _, error = await failure(wire.stream(ask(model="gpt-9")))
    assert isinstance(error, ModelNotFound) and "gpt-5-mini" in error.available


async def test_a_rate_limit_past_the_retries(wire: ResponsesWire, server: FakeResponses) -> None:
    limited = [error_reply(429, "Rate limit reached", "rate_limit_exceeded", retry_after="0.01")]
    server.enqueue(*(limited * 3))
    _, error = await failure(wire.stream(ask()))
    assert isinstance(error, RateLimited) and error.retry_after == pytest.approx(0.01)


async def test_openai_models_read_pdfs_through_it_and_custom_ones_do_not(
    server: FakeResponses,
) -> None:
    openai, custom = wire_to(server.url), wire_to(server.url, kind="custom", pid="mine")
    try:
        listed = await openai.list_models() + await custom.list_models()
    finally:
        await openai.aclose()
        await custom.aclose()
    by = {(m.provider_id, m.name): m for m in listed}
    assert "text-embedding-3-small" not in {m.name for m in listed}
    assert resolved(by["oa", "gpt-5-mini"], "openai").reads_pdfs is True
    assert resolved(by["mine", "gpt-5-mini"], "custom").reads_pdfs is False
    chat = ModelInfo("oa", "gpt-5-mini")  # the chat-completions listing says nothing of PDFs
    assert resolved(chat, "openai").reads_pdfs is False


@pytest.mark.parametrize(
    ("kind", "api", "wire_class", "url"),
    [
        ("openai", "", ResponsesWire, "https://api.openai.com/v1"),
        ("openai", "chat", OpenAIChatWire, "https://api.openai.com/v1"),
        ("custom", "", OpenAIChatWire, "http://127.0.0.1:8080/v1"),
        ("custom", "responses", ResponsesWire, "http://127.0.0.1:8080/v1"),
        ("openrouter", "responses", ResponsesWire, "https://openrouter.ai/api/v1"),
    ],
)
def test_the_api_chooses_the_wire(kind: str, api: str, wire_class: type, url: str) -> None:
    raw = {"providers": [{"kind": kind, "api": api}]} if api else {"providers": [{"kind": kind}]}
    [provider] = parse_config(raw, Path("config.toml"), Path("data")).providers
    assert (provider.api, provider.base_url) == (api, url)
    assert type(make_wire(provider)) is wire_class


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ({"kind": "openai", "api": "completions"}, 'api must be "responses" or "chat"'),
        ({"kind": "openai", "api": 2}, 'api must be "responses" or "chat", in quotes'),
        ({"kind": "anthropic", "api": "chat"}, "Anthropic has one API of its own"),
        ({"kind": "ollama", "api": "responses"}, "Ollama has one API of its own"),
    ],
)
def test_an_api_that_cannot_be_used_is_a_config_error(table: dict[str, Any], words: str) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_config({"providers": [table]}, Path("config.toml"), Path("data"))
    assert words in str(raised.value) and "config.toml" in str(raised.value)


# -- `sightline ask`, end to end ----------------------------------------------------------


def test_sightline_ask_uses_a_tool_and_hands_its_reasoning_back(tmp_path: Path) -> None:
    """A whole `sightline ask` process: the key from OPENAI_API_KEY, the openai preset's
    Responses wire, a tool's picture inside its output, the reasoning item handed back."""
    picture = tmp_path / "red.png"
    picture.write_bytes(make_picture("red").data)
    config = tmp_path / "config.toml"
    with FakeResponses(api_key=KEY) as server:
        config.write_text(
            f'discover_local = false\n[[providers]]\nid = "oa"\nkind = "openai"\n'
            f'base_url = "{server.url}"\nlocal = false\n'
        )
        call = {"call_id": "call_r", "name": "read_file", "arguments": {"path": str(picture)}}
        server.enqueue(
            Reply(reasoning="read it first", tool_calls=[call]), Reply(text="It is red.")
        )
        env = {"SIGHTLINE_CONFIG": str(config), "SIGHTLINE_DATA_DIR": str(tmp_path / "data")}
        done = sightline(
            os.environ | env | {"OPENAI_API_KEY": KEY},
            "ask",
            "--allow-tools",
            "--model",
            "oa:gpt-5-mini",
            "What colour is red.png?",
        )
        requests = server.chat_requests()
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("It is red.\n")
    first, second = requests
    assert "read_file" in [t["name"] for t in first["tools"]]
    assert all(t["strict"] is False for t in first["tools"])
    kinds = [item["type"] for item in second["input"]]
    assert kinds == ["message", "reasoning", "function_call", "function_call_output"]
    assert second["input"][1]["encrypted_content"].startswith("gAAAA")
    output = second["input"][3]["output"]
    assert [part["type"] for part in output] == ["input_text", "input_image"]


async def test_a_server_without_responses_answers_through_chat_unless_responses_was_chosen() -> (
    None
):
    """An OpenAI-compatible proxy given as `openai` has no /responses: chat stands in,
    from then on; one the person set to api = "responses" says the path is missing."""
    with FakeOpenAI(api_key=KEY) as chat_only:
        default = ResponsesWire(ProviderConfig("oa", "openai", chat_only.url, api_key=KEY))
        chosen = ResponsesWire(
            ProviderConfig("oa", "openai", chat_only.url, api_key=KEY, api="responses")
        )
        try:
            first = await collect(default.stream(ask("one", model="gpt-4o-mini")))
            second = await collect(default.stream(ask("two", model="gpt-4o-mini")))
            _, error = await failure(chosen.stream(ask("three", model="gpt-4o-mini")))
        finally:
            await default.aclose()
            await chosen.aclose()
        paths = chat_only.paths()
    assert "".join(e.text for e in first if isinstance(e, TextDelta)) == "You said: one"
    assert "".join(e.text for e in second if isinstance(e, TextDelta)) == "You said: two"
    assert paths == [
        "POST /v1/responses",
        "POST /v1/chat/completions",
        "POST /v1/chat/completions",  # remembered: /responses is not asked again
        "POST /v1/responses",
    ]
    assert isinstance(error, MalformedResponse) and "no such API path" in error.message
