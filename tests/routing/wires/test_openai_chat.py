"""The OpenAI chat wire against a real loopback server: request JSON, events, models, errors."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

import pytest

from routing.capabilities import resolved
from routing.errors import (
    BadRequest,
    CannotConnect,
    ContextTooLong,
    KeyProblem,
    MalformedResponse,
    ModelNotFound,
    Overloaded,
    PicturesRefused,
    QuotaExhausted,
    RateLimited,
    ServerError,
    StreamCut,
    TimedOut,
)
from routing.models import ProviderConfig, SightFrom
from routing.presets import preset_for
from routing.transcript import Message, TextPart, ToolCall, ToolResult, user_message
from routing.wires.base import ChatRequest, Done, TextDelta, ToolCallEvent, ToolSpec, Usage
from routing.wires.openai_chat import (
    OpenAIChatWire,
    StreamState,
    build_chat_body,
    finish_stream,
    parse_chunk,
)
from tests.events import collect
from tests.pictures import make_picture
from tests.routing.wires.helpers import failure, text_of
from tests.servers.fixtures import served
from tests.servers.loopback import closed_port
from tests.servers.openai_chat import ChatModel, FakeOpenAI, Reply

KEY = "sk-test-123"


def wire_for(
    kind: str, url: str, *, key: str = KEY, timeout: float = 5.0, pid: str = ""
) -> OpenAIChatWire:
    """A wire of `kind` to `url`, retrying fast so tests stay quick."""
    provider = ProviderConfig(id=pid or kind, kind=kind, base_url=url, api_key=key)
    return OpenAIChatWire(provider, timeout=timeout, retry_base_delay=0.01)


server = served(FakeOpenAI, "server")  # with a seeing and a blind model


@pytest.fixture
async def wire(server: FakeOpenAI) -> AsyncIterator[OpenAIChatWire]:
    """An OpenAI-preset wire to the loopback server."""
    async with aclosing(wire_for("openai", server.url)) as wire:
        yield wire


def ask(text: str = "hi", model: str = "gpt-4o-mini", **kw: Any) -> ChatRequest:
    """A one-message request."""
    pictures = kw.pop("pictures", ())
    return ChatRequest(model=model, messages=(user_message(text, pictures),), **kw)


TOOL_TURN = (
    user_message("weather in Oslo?"),
    Message(
        role="assistant",
        parts=(TextPart("Looking."), ToolCall("call_1", "weather", {"city": "Oslo", "days": 2})),
    ),
    Message(
        role="tool",
        parts=(
            ToolResult("call_1", "weather", (TextPart("sunny"),)),
            ToolResult("call_2", "radar", (TextPart("offline"),), is_error=True),
        ),
    ),
    user_message("and tomorrow?"),
)
WEATHER = ToolSpec(
    "weather",
    "Forecast for a city",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


# -- the request ------------------------------------------------------------------


async def test_text_only_request_is_plain_strings(wire: OpenAIChatWire, server: FakeOpenAI) -> None:
    """System first, text as a plain string (never a one-part array), usage asked for."""
    await collect(wire.stream(ask("hello", system="Be brief.")))
    assert server.chat_requests() == [
        {
            "model": "gpt-4o-mini",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "hello"},
            ],
            "stream": True,
            "stream_options": {"include_usage": True},
        }
    ]
    assert server.headers[-1]["Authorization"] == f"Bearer {KEY}"
    assert server.paths() == ["POST /v1/chat/completions"]


@pytest.mark.parametrize(
    ("kind", "length_key"), [("openai", "max_completion_tokens"), ("custom", "max_tokens")]
)
async def test_the_chats_parameters_in_the_openai_shape(
    server: FakeOpenAI, kind: str, length_key: str
) -> None:
    """Temperature and answer length as the API names them; no context length (not its)."""
    wire = wire_for(kind, server.url)
    try:
        await collect(
            wire.stream(
                ask(
                    "hello",
                    system="Be brief.",
                    temperature=1.2,
                    max_tokens=300,
                    context_length=4096,
                )
            )
        )
    finally:
        await wire.aclose()
    (sent,) = server.chat_requests()
    assert sent["messages"][0] == {"role": "system", "content": "Be brief."}
    assert sent["temperature"] == 1.2
    assert sent[length_key] == 300
    assert "num_ctx" not in sent and "context_length" not in sent
    other = "max_tokens" if length_key == "max_completion_tokens" else "max_completion_tokens"
    assert other not in sent


async def test_no_parameters_are_sent_unless_set(wire: OpenAIChatWire, server: FakeOpenAI) -> None:
    await collect(wire.stream(ask("hello")))
    (sent,) = server.chat_requests()
    assert not {"temperature", "max_tokens", "max_completion_tokens"} & set(sent)


async def test_pictures_go_as_image_url_data_urls(wire: OpenAIChatWire, server: FakeOpenAI) -> None:
    """Words first, then each picture as a base64 data URL with its real type."""
    red, blue = make_picture("red"), make_picture("blue")
    events = await collect(wire.stream(ask("what is this?", pictures=(red, blue))))
    assert text_of(events) == "You said: what is this? (I see 2 pictures)"
    content = server.chat_requests()[0]["messages"][0]["content"]
    assert content[0] == {"type": "text", "text": "what is this?"}
    assert [p["type"] for p in content] == ["text", "image_url", "image_url"]
    for part, picture in zip(content[1:], (red, blue), strict=True):
        prefix, _, data = part["image_url"]["url"].partition(",")
        assert prefix == "data:image/png;base64"
        assert base64.b64decode(data) == picture.data


def test_a_picture_alone_has_no_empty_text_part() -> None:
    """A message of pictures only carries no empty text part."""
    body = build_chat_body(ask("", pictures=(make_picture(),)), preset_for("openai"))
    assert [p["type"] for p in body["messages"][0]["content"]] == ["image_url"]


async def test_tool_turn_exact_json(wire: OpenAIChatWire, server: FakeOpenAI) -> None:
    """Assistant tool calls with JSON-string arguments, one tool message per result."""
    await collect(wire.stream(ChatRequest("gpt-4o-mini", TOOL_TURN, tools=(WEATHER,))))
    body = server.chat_requests()[0]
    assert body["messages"] == [
        {"role": "user", "content": "weather in Oslo?"},
        {
            "role": "assistant",
            "content": "Looking.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "weather", "arguments": '{"city": "Oslo", "days": 2}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "call_2", "content": "Error: offline"},
        {"role": "user", "content": "and tomorrow?"},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "weather",
                "description": "Forecast for a city",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                },
            },
        }
    ]


def test_assistant_with_only_a_call_has_null_content() -> None:
    """No words beside a call: content null, as OpenAI's own clients send it."""
    turn = (Message(role="assistant", parts=(ToolCall("c", "f", {}),)),)
    body = build_chat_body(ChatRequest("m", turn), preset_for("openai"))
    assert body["messages"][0]["content"] is None
    assert body["messages"][0]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert "tools" not in body


@pytest.mark.parametrize(
    ("kind", "usage"),
    [("openai", True), ("deepseek", True), ("groq", True), ("mistral", False), ("zai", False)],
)
def test_include_usage_per_preset(kind: str, usage: bool) -> None:
    """stream_options only where the preset says the provider takes it."""
    body = build_chat_body(ask(), preset_for(kind))
    assert ("stream_options" in body) is usage


async def test_mistral_bridge_is_in_the_request_only() -> None:
    """Mistral gets an empty assistant turn between tool and user; the transcript does not."""
    with FakeOpenAI(flavour="mistral", models=[ChatModel("mistral-small-latest")]) as server:
        wire = wire_for("mistral", server.url)
        events = await collect(wire.stream(ChatRequest("mistral-small-latest", TOOL_TURN)))
        await wire.aclose()
    assert text_of(events) == "You said: and tomorrow?"
    roles = [m["role"] for m in server.chat_requests()[0]["messages"]]
    assert roles == ["user", "assistant", "tool", "tool", "assistant", "user"]
    assert server.chat_requests()[0]["messages"][4] == {"role": "assistant", "content": ""}
    assert "stream_options" not in server.chat_requests()[0]
    assert [m.role for m in TOOL_TURN] == ["user", "assistant", "tool", "user"]


async def test_without_the_bridge_mistral_refuses_with_a_bad_request() -> None:
    """Mistral's role-order refusal is our shaping bug (BadRequest), never a picture refusal."""
    with FakeOpenAI(flavour="mistral", models=[ChatModel("mistral-small-latest")]) as server:
        wire = wire_for("custom", server.url, key="")
        _, error = await failure(wire.stream(ChatRequest("mistral-small-latest", TOOL_TURN)))
        await wire.aclose()
    assert isinstance(error, BadRequest) and not isinstance(error, PicturesRefused)
    assert "Unexpected role 'user' after role 'tool'" in error.detail
    assert "Sightline bug" in error.message


# -- the stream -------------------------------------------------------------------


async def test_text_usage_and_done(wire: OpenAIChatWire, server: FakeOpenAI) -> None:
    """Deltas as they come, usage from the choices-less chunk, then Done."""
    server.enqueue(Reply(text="Hello there!", prompt_tokens=30, completion_tokens=4))
    events = await collect(wire.stream(ask()))
    assert events == [
        TextDelta("Hell"),
        TextDelta("o th"),
        TextDelta("ere!"),
        Usage(input_tokens=30, output_tokens=4),
        Done("stop"),
    ]


async def test_no_usage_unless_asked() -> None:
    """A preset without include_usage asks for none, and the server sends none."""
    with FakeOpenAI(models=[ChatModel("glm-4.6")]) as server:
        wire = wire_for("zai", server.url)
        events = await collect(wire.stream(ask(model="glm-4.6")))
        await wire.aclose()
    assert not any(isinstance(e, Usage) for e in events)
    assert events[-1] == Done("stop")


async def test_parallel_tool_calls_joined_across_chunks(
    wire: OpenAIChatWire, server: FakeOpenAI
) -> None:
    """Fragments of two calls, interleaved by index, come out as two whole calls."""
    calls = [
        {"id": "call_a", "name": "weather", "arguments": {"city": "Oslo", "unit": "celsius"}},
        {"id": "call_b", "name": "time", "arguments": {"zone": "Europe/Oslo"}},
    ]
    server.enqueue(Reply(text="Checking.", tool_calls=calls, args_chunk=3, interleave=True))
    events = await collect(wire.stream(ask(tools=(WEATHER,))))
    assert text_of(events) == "Checking."
    assert [e.call for e in events if isinstance(e, ToolCallEvent)] == [
        ToolCall("call_a", "weather", {"city": "Oslo", "unit": "celsius"}),
        ToolCall("call_b", "time", {"zone": "Europe/Oslo"}),
    ]
    assert events[-2:] == [Usage(12, 7), Done("tool_calls")]


async def test_invalid_tool_arguments_are_kept_raw(
    wire: OpenAIChatWire, server: FakeOpenAI
) -> None:
    """Arguments that are not JSON are kept as `_raw` rather than failing the turn."""
    server.enqueue(Reply(tool_calls=[{"id": "c1", "name": "f", "arguments": '{"a": 1,'}]))
    events = await collect(wire.stream(ask()))
    assert [e.call for e in events if isinstance(e, ToolCallEvent)] == [
        ToolCall("c1", "f", {"_raw": '{"a": 1,'})
    ]


async def test_stream_without_done_after_a_finish_reason(
    wire: OpenAIChatWire, server: FakeOpenAI
) -> None:
    """A server that never sends [DONE] still finished when it gave a finish reason."""
    server.enqueue(Reply(text="ok", done=False))
    assert (await collect(wire.stream(ask())))[-1] == Done("stop")


async def test_a_server_that_ignores_stream(wire: OpenAIChatWire, server: FakeOpenAI) -> None:
    """A whole JSON completion (no SSE) is read as one chunk."""
    whole = {
        "id": "x",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "All at once.",
                    "tool_calls": [
                        {
                            "id": "c",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7},
    }
    server.enqueue(Reply(raw_body=json.dumps(whole), content_type="application/json"))
    events = await collect(wire.stream(ask()))
    assert events == [
        TextDelta("All at once."),
        ToolCallEvent(ToolCall("c", "f", {})),
        Usage(3, 4),
        Done("tool_calls"),
    ]


def test_parse_chunk_is_pure() -> None:
    """Groq's x_groq usage, Moonshot's usage in the choice, index-less whole calls."""
    state = StreamState(provider=ProviderConfig(id="p", kind="groq", base_url="http://x"))
    groq = {"choices": [], "x_groq": {"usage": {"prompt_tokens": 5, "completion_tokens": 6}}}
    assert parse_chunk(groq, state) == []
    whole_calls = {
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [
                        {"id": "a", "function": {"name": "f", "arguments": {"x": 1}}},
                        {"id": "b", "function": {"name": "g", "arguments": "{}"}},
                    ]
                },
                "finish_reason": "tool_calls",
                "usage": {"prompt_tokens": 7, "completion_tokens": 8},
            }
        ]
    }
    assert parse_chunk(whole_calls, state) == [
        ToolCallEvent(ToolCall("a", "f", {"x": 1})),
        ToolCallEvent(ToolCall("b", "g", {})),
    ]
    assert finish_stream(state) == [Usage(7, 8), Done("tool_calls")]
    with pytest.raises(MalformedResponse):
        parse_chunk(["not", "an", "object"], state)


# -- models -----------------------------------------------------------------------


async def test_openai_listing_says_no_sight_and_skips_non_chat(
    wire: OpenAIChatWire, server: FakeOpenAI
) -> None:
    """OpenAI lists no sight (the catalogue applies the preset's rule); embeddings are left out."""
    models = await wire.list_models()
    assert [(m.name, m.sees, m.tools, m.local) for m in models] == [
        ("gpt-4o-mini", None, None, True),
        ("text-only-7b", None, None, True),
    ]
    assert server.paths() == ["GET /v1/models"]
    resolved_models = [resolved(m, "openai") for m in models]
    assert [(m.sees, m.tools, m.sight_from) for m in resolved_models] == [
        (True, True, SightFrom.PRESET),
        (True, True, SightFrom.PRESET),
    ]


async def test_xai_language_models_say_who_sees() -> None:
    """xAI's /language-models input_modalities beat the name rule."""
    models = [ChatModel("grok-3", sees=True), ChatModel("grok-4-0709", sees=False)]
    with FakeOpenAI(models=models, language_models=True) as server:
        wire = wire_for("xai", server.url)
        listed = await wire.list_models()
        await wire.aclose()
    assert [(m.name, m.sees) for m in listed] == [("grok-3", True), ("grok-4-0709", False)]
    assert "GET /v1/language-models" in server.paths()


async def test_openrouter_listing_says_sight_and_tools() -> None:
    """OpenRouter: input_modalities says sight, supported_parameters says tools."""
    models = [
        ChatModel("openai/gpt-4o", sees=True, tools=True, context_length=128000),
        ChatModel("deepseek/deepseek-chat", sees=False, tools=False, context_length=64000),
    ]
    with FakeOpenAI(models=models, flavour="openrouter") as server:
        wire = wire_for("openrouter", server.url)
        listed = await wire.list_models()
        await wire.aclose()
    assert [(m.name, m.sees, m.tools, m.context_length, m.label) for m in listed] == [
        ("openai/gpt-4o", True, True, 128000, "Fake: openai/gpt-4o"),
        ("deepseek/deepseek-chat", False, False, 64000, "Fake: deepseek/deepseek-chat"),
    ]
    assert server.paths() == ["GET /api/v1/models"]
    assert server.headers[-1]["X-Title"] == "Sightline"


async def test_mistral_listing_capabilities() -> None:
    """Mistral: capabilities.vision and function_calling; its embedding model is left out."""
    models = [
        ChatModel("pixtral-12b-2409", sees=True, tools=True),
        ChatModel("open-mistral-nemo", sees=False, tools=False),
        ChatModel("mistral-embed", sees=False, tools=False),
    ]
    with FakeOpenAI(models=models, flavour="mistral") as server:
        wire = wire_for("mistral", server.url)
        listed = await wire.list_models()
        await wire.aclose()
    assert [(m.name, m.sees, m.tools) for m in listed] == [
        ("pixtral-12b-2409", True, True),
        ("open-mistral-nemo", False, False),
    ]


@pytest.mark.parametrize("vision", [True, False])
async def test_llamacpp_props_say_whether_its_model_sees(vision: bool) -> None:
    """A server of your own at its root address: /v1 is added, /props says sight."""
    with FakeOpenAI(models=[ChatModel("gemma3", sees=vision)], flavour="llamacpp") as server:
        wire = wire_for("custom", server.base_url, key="")
        listed = await wire.list_models()
        await wire.aclose()
    assert [(m.name, m.sees, m.local) for m in listed] == [("gemma3", vision, True)]
    assert server.paths() == ["GET /v1/models", "GET /props"]
    assert "Authorization" not in server.headers[0]


async def test_a_server_of_your_own_without_props_is_unknown(server: FakeOpenAI) -> None:
    """No /props (404): sight stays unknown, and the listing still works."""
    wire = wire_for("custom", server.url, key="")
    listed = await wire.list_models()
    await wire.aclose()
    assert [m.sees for m in listed] == [None, None]


# -- errors -----------------------------------------------------------------------


@pytest.mark.parametrize("flavour", ["openai", "openrouter", "deepseek", "groq", "llamacpp"])
async def test_each_flavours_picture_refusal(flavour: str) -> None:
    """A picture to a blind model, refused in each provider's own words, is of kind images."""
    with FakeOpenAI(flavour=flavour) as server:
        wire = wire_for("custom", server.url, key="")
        _, error = await failure(
            wire.stream(ask("look", model="text-only-7b", pictures=(make_picture(),)))
        )
        await wire.aclose()
    assert isinstance(error, PicturesRefused), error.detail
    assert error.kind == "images"
    assert "can't take pictures" in error.message


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (400, {"error": {"message": "this model does not support image input"}}),
        (500, {"error": "this model is missing data required for image input"}),
        (400, {"error": "Model does not support images. Please use a model that does."}),
        (
            400,
            {
                "code": "Client specified an invalid argument",
                "error": "The model does not support content elements of type image.",
            },
        ),
        (404, [{"error": {"code": 404, "message": "No endpoints found that support image input"}}]),
    ],
)
async def test_every_refusal_text_over_http(
    wire: OpenAIChatWire, server: FakeOpenAI, status: int, body: Any
) -> None:
    """Ollama's, LM Studio's and xAI's words too, whatever shape the body takes."""
    server.enqueue(Reply(status=status, body=body))
    _, error = await failure(wire.stream(ask(pictures=(make_picture(),))))
    assert isinstance(error, PicturesRefused)


async def test_refusal_inside_the_stream(wire: OpenAIChatWire, server: FakeOpenAI) -> None:
    """OpenRouter may refuse inside a 200 stream; that is still a picture refusal."""
    refusal = {"code": 404, "message": "No endpoints found that support image input"}
    server.enqueue(Reply(midstream_error=refusal))
    _, error = await failure(wire.stream(ask(pictures=(make_picture(),))))
    assert isinstance(error, PicturesRefused)


async def test_groq_shape_complaint_without_pictures_is_a_bad_request(
    wire: OpenAIChatWire, server: FakeOpenAI
) -> None:
    """Groq's 'content must be a string' means refusal only when pictures went along."""
    words = "'messages.0' : for 'role:user' the following must be satisfied"
    words += "[('messages.0.content' : value must be a string)]"
    body = {"error": {"message": words, "type": "invalid_request_error"}}
    server.enqueue(Reply(status=400, body=body), Reply(status=400, body=body))
    _, plain = await failure(wire.stream(ask()))
    _, pictured = await failure(wire.stream(ask(pictures=(make_picture(),))))
    assert type(plain) is BadRequest
    assert isinstance(pictured, PicturesRefused)


async def test_openrouter_data_policy_404_is_not_about_pictures() -> None:
    """OpenRouter's data-policy 404 says what to change; it is not a picture refusal."""
    words = "No endpoints found matching your data policy (Free model publication)."
    with FakeOpenAI(flavour="openrouter") as server:
        server.enqueue(Reply(status=404, body={"error": {"message": words, "code": 404}}))
        wire = wire_for("openrouter", server.url)
        _, error = await failure(wire.stream(ask(pictures=(make_picture(),))))
        await wire.aclose()
    assert isinstance(error, ModelNotFound) and not isinstance(error, PicturesRefused)
    assert "openrouter.ai/settings/privacy" in error.message


async def test_wrong_key_names_the_variable() -> None:
    """A 401 says which variable to set, and where else the key can go."""
    with FakeOpenAI(api_key="sk-right") as server:
        wire = wire_for("openai", server.url, key="sk-wrong")
        _, error = await failure(wire.stream(ask()))
        with pytest.raises(KeyProblem):
            await wire.list_models()
        await wire.aclose()
    assert isinstance(error, KeyProblem)
    assert "OPENAI_API_KEY" in error.message and "Settings → Providers" in error.message
    assert "sk-wrong" not in error.message  # the provider's words stay in the detail


async def test_missing_key_fails_before_any_request(server: FakeOpenAI) -> None:
    """A preset that needs a key and has none fails without sending anything."""
    wire = wire_for("groq", server.url, key="")
    _, error = await failure(wire.stream(ask()))
    with pytest.raises(KeyProblem, match="GROQ_API_KEY"):
        await wire.list_models()
    await wire.aclose()
    assert isinstance(error, KeyProblem) and "GROQ_API_KEY" in error.message
    assert server.requests == []


RATE = {"error": {"message": "Rate limit reached for requests", "type": "requests", "code": None}}


async def test_rate_limit_is_retried_after_the_wait_asked(
    wire: OpenAIChatWire, server: FakeOpenAI
) -> None:
    """A 429 with retry-after 0.2 s is waited out once, then the answer comes."""
    server.enqueue(
        Reply(status=429, body=RATE, headers={"retry-after": "0.2"}), Reply(text="finally")
    )
    started = time.monotonic()
    events = await collect(wire.stream(ask()))
    assert text_of(events) == "finally"
    assert len(server.chat_requests()) == 2
    assert time.monotonic() - started >= 0.15


async def test_rate_limit_repeated_gives_up_with_retry_after(
    wire: OpenAIChatWire, server: FakeOpenAI
) -> None:
    """Two retries at most; then RateLimited says how long to wait."""
    limited = Reply(status=429, body=RATE, headers={"retry-after-ms": "50"})
    server.enqueue(limited, limited, limited, Reply(text="too late"))
    _, error = await failure(wire.stream(ask()))
    assert isinstance(error, RateLimited) and error.retry_after == pytest.approx(0.05)
    assert len(server.chat_requests()) == 3


async def test_a_long_wait_is_not_waited(wire: OpenAIChatWire, server: FakeOpenAI) -> None:
    """Past the cap (20 s) the person decides: no retry, the wait is reported."""
    server.enqueue(Reply(status=429, body=RATE, headers={"x-ratelimit-reset-requests": "1m30s"}))
    _, error = await failure(wire.stream(ask()))
    assert isinstance(error, RateLimited) and error.retry_after == 90
    assert "90 seconds" in error.message
    assert len(server.chat_requests()) == 1


async def test_quota_is_never_retried(wire: OpenAIChatWire, server: FakeOpenAI) -> None:
    """Out of credit: waiting won't help."""
    body = {
        "error": {
            "message": "You exceeded your current quota, please check your plan and billing.",
            "type": "insufficient_quota",
            "code": "insufficient_quota",
        }
    }
    server.enqueue(Reply(status=429, body=body), Reply(text="never"))
    _, error = await failure(wire.stream(ask()))
    assert isinstance(error, QuotaExhausted) and len(server.chat_requests()) == 1


async def test_overloaded_is_retried(wire: OpenAIChatWire, server: FakeOpenAI) -> None:
    """A 503 gets a short backoff, then the answer."""
    busy = {"error": {"message": "The server is overloaded", "type": "server_error"}}
    server.enqueue(Reply(status=503, body=busy), Reply(text="back"))
    assert text_of(await collect(wire.stream(ask()))) == "back"
    server.enqueue(*(Reply(status=503, body=busy) for _ in range(3)))
    _, error = await failure(wire.stream(ask()))
    assert isinstance(error, Overloaded) and isinstance(error, ServerError)


async def test_server_error_500(wire: OpenAIChatWire, server: FakeOpenAI) -> None:
    """A 500 without refusal words is the provider's failure, not retried."""
    body = {"error": {"message": "The server had an error", "type": "server_error"}}
    server.enqueue(Reply(status=500, body=body))
    _, error = await failure(wire.stream(ask()))
    assert type(error) is ServerError and "HTTP 500" in error.message
    assert len(server.chat_requests()) == 1


async def test_context_length(wire: OpenAIChatWire, server: FakeOpenAI) -> None:
    """OpenAI's context_length_exceeded is ContextTooLong."""
    body = {
        "error": {
            "message": "This model's maximum context length is 128000 tokens. However, your "
            "messages resulted in 204308 tokens. Please reduce the length of the messages.",
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    }
    server.enqueue(Reply(status=400, body=body))
    _, error = await failure(wire.stream(ask()))
    assert isinstance(error, ContextTooLong) and "new chat" in error.message


async def test_broken_sse_json_after_text(wire: OpenAIChatWire, server: FakeOpenAI) -> None:
    """A chunk that is not JSON is MalformedResponse; the words before it were yielded."""
    server.enqueue(Reply(text="partial", raw_events=['{"choices": [{"delta": ']))
    seen, error = await failure(wire.stream(ask()))
    assert seen == "partial"
    assert isinstance(error, MalformedResponse)


@pytest.mark.parametrize("status", [200, 511])
async def test_captive_portal_page(wire: OpenAIChatWire, server: FakeOpenAI, status: int) -> None:
    """A network's sign-in page instead of the API says so."""
    page = "<!DOCTYPE html><html><head><title>Sign in to Café Wi-Fi</title></head></html>"
    server.enqueue(Reply(status=status, raw_body=page))
    _, error = await failure(wire.stream(ask()))
    assert isinstance(error, MalformedResponse)
    assert "web page" in error.message and "captive portal" in error.message


async def test_dropped_stream_keeps_the_words_so_far(
    wire: OpenAIChatWire, server: FakeOpenAI
) -> None:
    """The connection cut mid-answer: the text already streamed came out, then ServerError."""
    server.enqueue(Reply(text="Once upon a time", drop_after=3))
    seen, error = await failure(wire.stream(ask()))
    assert seen == "Once upo"  # the role chunk, then two 4-character deltas
    assert type(error) is StreamCut and "cut off" in error.message


async def test_stream_ending_early_is_cut_off(wire: OpenAIChatWire, server: FakeOpenAI) -> None:
    """A clean end without [DONE] or a finish reason is still a cut-off answer."""
    server.enqueue(Reply(text="Half", finish=False, done=False))
    seen, error = await failure(wire.stream(ask()))
    assert seen == "Half"
    assert type(error) is StreamCut and "cut off" in error.message


async def test_a_cut_off_answer_names_a_server_of_your_own_mid_sentence(server: FakeOpenAI) -> None:
    wire = wire_for("custom", server.url)
    server.enqueue(Reply(text="Half", finish=False, done=False))
    try:
        _, error = await failure(wire.stream(ask()))
    finally:
        await wire.aclose()
    assert error.message == (
        f"The answer was cut off: the connection to the server at 127.0.0.1:{server.port} "
        "dropped before it finished. Try again."
    )


async def test_error_inside_the_stream_after_text(wire: OpenAIChatWire, server: FakeOpenAI) -> None:
    """OpenRouter's in-stream provider error comes after the words it already sent."""
    server.enqueue(
        Reply(text="Hi", midstream_error={"code": 502, "message": "Provider returned error"})
    )
    seen, error = await failure(wire.stream(ask()))
    assert seen == "Hi"
    assert isinstance(error, ServerError) and "Provider returned error" in error.detail


async def test_connection_refused() -> None:
    """Nothing listening: CannotConnect naming the address."""
    url = f"http://127.0.0.1:{closed_port()}/v1"
    wire = wire_for("custom", url, key="")
    _, error = await failure(wire.stream(ask()))
    with pytest.raises(CannotConnect):
        await wire.list_models()
    await wire.aclose()
    assert isinstance(error, CannotConnect)
    assert url.removeprefix("http://").removesuffix("/v1") in error.message  # host and port


async def test_unknown_model_lists_what_there_is(wire: OpenAIChatWire) -> None:
    """A 404 model_not_found carries the provider's model names."""
    _, error = await failure(wire.stream(ask(model="gpt-9")))
    assert isinstance(error, ModelNotFound)
    assert "gpt-9" in error.message
    assert "gpt-4o-mini" in error.available


async def test_wrong_path_says_check_the_base_url(server: FakeOpenAI) -> None:
    """The server root given to a preset that expects /v1: a 404 that names the fix."""
    wire = wire_for("openai", server.base_url)
    _, error = await failure(wire.stream(ask()))
    await wire.aclose()
    assert isinstance(error, MalformedResponse) and "base URL" in error.message


async def test_timeout(server: FakeOpenAI) -> None:
    """A server that stops answering is TimedOut."""
    wire = wire_for("openai", server.url, timeout=0.3)
    server.enqueue(Reply(text="slow", delay=1.0))
    _, error = await failure(wire.stream(ask()))
    await wire.aclose()
    assert isinstance(error, TimedOut)


# -- a real llama.cpp server ------------------------------------------------------


@pytest.mark.real_engine
async def test_real_llama_cpp_server(llama_server: str) -> None:
    """A real local server: listing, a streamed answer with usage and Done."""
    wire = wire_for("custom", llama_server, key="", timeout=120)
    models = await wire.list_models()
    assert [m.name for m in models] == ["gemma3-270m"] and models[0].local
    # A few words are the proof; a cap keeps a rambling small model from filling its context.
    events = await collect(wire.stream(ask("Say hello.", model="gemma3-270m", max_tokens=32)))
    await wire.aclose()
    assert isinstance(events[-1], Done)
    assert text_of(events).strip()


def test_llama_cpps_timings_give_the_servers_own_generating_time() -> None:
    state = StreamState(provider=ProviderConfig(id="l", kind="custom", base_url="http://x"))
    chunk = {
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1085, "completion_tokens": 247},
        "timings": {"predicted_n": 247, "predicted_ms": 933.63, "predicted_per_second": 264.6},
    }
    parse_chunk(chunk, state)
    assert finish_stream(state)[0] == Usage(1085, 247, generating_seconds=0.93363)
    nonsense = {**chunk, "timings": {"predicted_ms": "soon"}}
    state = StreamState(provider=ProviderConfig(id="l", kind="custom", base_url="http://x"))
    parse_chunk(nonsense, state)
    assert finish_stream(state)[0] == Usage(1085, 247)
