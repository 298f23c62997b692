"""The Gemini wire against a real loopback server: exact request JSON, events, signatures."""

from __future__ import annotations

import base64
import json
import os
from collections.abc import AsyncIterator
from contextlib import aclosing
from pathlib import Path
from typing import Any

import pytest

from app.config import ConfigError, parse_config
from app.store import Store
from app.turn.events import TurnEnded, TurnEvent
from routing.capabilities import resolved
from routing.errors import (
    BadRequest,
    KeyProblem,
    MalformedResponse,
    ModelNotFound,
    PicturesRefused,
    QuotaExhausted,
    RateLimited,
    ServerError,
)
from routing.models import ProviderConfig
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
from routing.wires.base import Carried, ChatRequest, Done, TextDelta, ToolCallEvent, ToolSpec, Usage
from routing.wires.gemini import GeminiWire
from routing.wires.gemini_request import INVENTED, build_gemini_body, pictures_in_responses
from routing.wires.gemini_stream import StreamState, finish_stream, parse_chunk
from routing.wires.openai_chat import OpenAIChatWire
from routing.wires.registry import make_wire
from tests.events import collect
from tests.faults.cli import sightline
from tests.pdfs import text_pdf
from tests.pictures import make_picture
from tests.routing.wires.helpers import (
    PictureTool,
    failure,
    runner_turn,
    screenshot_steps,
    text_of,
    two_screenshots,
)
from tests.servers.fixtures import served
from tests.servers.gemini import (
    DEFAULT_KEY,
    MISSING_SIGNATURE,
    FakeGemini,
    GeminiModel,
    Reply,
    error_reply,
    quota_failure,
    retry_info,
)
from vision.pdf import open_pdf
from vision.pictures import Picture

G3, G25 = "gemini-3-pro-preview", "gemini-2.5-flash"


def blob(data: bytes, mime: str = "image/png") -> dict[str, Any]:
    return {"inlineData": {"mimeType": mime, "data": base64.b64encode(data).decode()}}


server = served(FakeGemini, "server")


def wire_to(url: str, key: str = DEFAULT_KEY) -> GeminiWire:
    return GeminiWire(ProviderConfig("g", "gemini", url, api_key=key), retry_base_delay=0.01)


@pytest.fixture
async def wire(server: FakeGemini) -> AsyncIterator[GeminiWire]:
    async with aclosing(wire_to(server.base_url)) as wire:
        yield wire


def ask(text: str = "hi", model: str = G25, **kw: Any) -> ChatRequest:
    return ChatRequest(model=model, messages=(user_message(text, kw.pop("pictures", ())),), **kw)


SHOT = ToolSpec(
    "screenshot",
    "A picture of the screen",
    {"type": "object", "properties": {"window": {"type": "string"}}, "additionalProperties": False},
)

# -- the request ------------------------------------------------------------------


async def test_text_exact_json_with_system_temperature_and_length(
    wire: GeminiWire, server: FakeGemini
) -> None:
    events = await collect(
        wire.stream(
            ask("hello", system="Be brief.", temperature=0.3, max_tokens=200, context_length=9)
        )
    )
    assert server.chat_requests() == [
        {
            "contents": [{"role": "user", "parts": [{"text": "hello"}]}],
            "systemInstruction": {"parts": [{"text": "Be brief."}]},
            "generationConfig": {"temperature": 0.3, "maxOutputTokens": 200},
        }
    ]
    [request] = server.received(server.is_chat)
    assert request.path == f"/v1beta/models/{G25}:streamGenerateContent?alt=sse"
    assert request.headers["x-goog-api-key"] == DEFAULT_KEY
    assert "authorization" not in request.headers
    assert text_of(events) == "You said: hello" and events[-1] == Done("stop")
    assert Usage(17, 8) in events


async def test_nothing_is_sent_that_was_not_set(wire: GeminiWire, server: FakeGemini) -> None:
    await collect(wire.stream(ask()))
    assert server.chat_requests() == [{"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}]


async def test_an_attached_picture_is_bare_inline_data(
    wire: GeminiWire, server: FakeGemini
) -> None:
    red = make_picture("red")
    events = await collect(wire.stream(ask("what is it?", pictures=(red,))))
    assert server.chat_requests()[0]["contents"] == [
        {"role": "user", "parts": [{"text": "what is it?"}, blob(red.data)]}
    ]
    assert text_of(events) == "You said: what is it? (I see 1 pictures)"


async def test_a_gif_goes_as_a_png_gemini_takes(wire: GeminiWire, server: FakeGemini) -> None:
    gif = make_picture("green", fmt="GIF", label="g.gif")
    await collect(wire.stream(ask("and this?", pictures=(gif,))))
    part = server.chat_requests()[0]["contents"][0]["parts"][1]["inlineData"]
    assert part["mimeType"] == "image/png"
    assert base64.b64decode(part["data"]).startswith(b"\x89PNG")


async def test_an_attached_pdf_is_inline_data_before_the_words(
    wire: GeminiWire, server: FakeGemini
) -> None:
    pdf = open_pdf(text_pdf(["Invoice 42"]), name="invoice.pdf")
    events = await collect(
        wire.stream(ChatRequest(G25, (Message("user", (TextPart("total?"), PdfPart(pdf))),)))
    )
    assert server.chat_requests()[0]["contents"] == [
        {"role": "user", "parts": [blob(pdf.data, "application/pdf"), {"text": "total?"}]}
    ]
    assert text_of(events) == "You said: total? (I read 1 PDFs)"


SIGNATURE = "c2lnbmVkIGJ5IHRoZSB0ZXN0"


def signed(messages: tuple[Message, ...], model: str, server: FakeGemini) -> tuple[Message, ...]:
    """The messages with each answer's calls signed as a Gemini 3 model signs them (the
    first call of each answer), the signature one the server knows it gave."""
    server.signatures.add(SIGNATURE)
    out = []
    for message in messages:
        if message.role == "assistant" and message.tool_calls:
            parts: list[dict[str, Any]] = [{"text": message.text}] if message.text else []
            for n, call in enumerate(message.tool_calls):
                part: dict[str, Any] = {"functionCall": {"name": call.name, "id": call.id}}
                parts.append(part | ({"thoughtSignature": SIGNATURE} if n == 0 else {}))
            carried = CarriedPart("gemini", f"g:{model}", {"parts": parts})
            message = Message("assistant", (*message.parts, carried))
        out.append(message)
    return tuple(out)


STEP = two_screenshots("c-left", f"{INVENTED}abc", second_failed=True)


def test_a_step_of_two_tool_pictures_for_gemini_3_goes_inside_the_responses() -> None:
    body = build_gemini_body(ChatRequest(G3, STEP, tools=(SHOT,)), f"g:{G3}")
    assert body["contents"][1:] == [
        {
            "role": "model",
            "parts": [
                {"text": "Looking."},
                {
                    "functionCall": {
                        "name": "screenshot",
                        "id": "c-left",
                        "args": {"window": "left"},
                    }
                },
                {
                    "functionCall": {"name": "screenshot", "args": {"window": "right"}}
                },  # no id given
            ],
        },
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "name": "screenshot",
                        "id": "c-left",
                        "response": {"output": "left"},
                        "parts": [blob(make_picture("red").data)],
                    }
                },
                {
                    "functionResponse": {
                        "name": "screenshot",
                        "response": {"error": ""},
                        "parts": [blob(make_picture("blue").data)],
                    }
                },
            ],
        },
    ]
    assert body["tools"] == [
        {
            "functionDeclarations": [
                {
                    "name": "screenshot",
                    "description": "A picture of the screen",
                    "parametersJsonSchema": {
                        "type": "object",
                        "properties": {"window": {"type": "string"}},
                        "additionalProperties": False,
                    },
                }
            ]
        }
    ]


async def test_older_models_get_the_pictures_right_after_each_response(
    wire: GeminiWire, server: FakeGemini
) -> None:
    events = await collect(wire.stream(ChatRequest(G25, STEP)))
    assert server.chat_requests()[0]["contents"][2] == {
        "role": "user",
        "parts": [
            {
                "functionResponse": {
                    "name": "screenshot",
                    "id": "c-left",
                    "response": {"output": "left"},
                }
            },
            blob(make_picture("red").data),
            {"functionResponse": {"name": "screenshot", "response": {"error": ""}}},
            blob(make_picture("blue").data),
        ],
    }
    assert text_of(events) == "Tools answered 2 calls (0 pictures inside, 2 after)"


@pytest.mark.parametrize(
    ("model", "inside"),
    [
        (G3, True),
        ("gemini-3.1-flash", True),
        ("gemini-4-ultra", True),
        (G25, False),
        ("gemma-3", False),
    ],
)
def test_which_models_take_pictures_inside_responses(model: str, inside: bool) -> None:
    assert pictures_in_responses(model) is inside


async def test_a_model_that_refuses_them_inside_is_given_them_after_and_remembered() -> None:
    models = [GeminiModel("gemini-3-nano", tool_pictures=False)]
    with FakeGemini(models) as server:
        wire = wire_to(server.base_url)
        try:
            step = signed(STEP, "gemini-3-nano", server)
            await collect(wire.stream(ChatRequest("gemini-3-nano", step)))
            await collect(wire.stream(ChatRequest("gemini-3-nano", step)))
        finally:
            await wire.aclose()
    refused, after, remembered = server.chat_requests()
    assert "parts" in refused["contents"][2]["parts"][0]["functionResponse"]
    assert after == remembered and "inlineData" in after["contents"][2]["parts"][1]
    assert wire.pictures_after == {"gemini-3-nano"}


async def test_five_tool_pictures_age_to_the_newest_three(
    wire: GeminiWire, server: FakeGemini
) -> None:
    colours = ["red", "orange", "yellow", "green", "blue"]
    messages = screenshot_steps("watch", colours)
    shaped = shape_messages(signed(messages, G3, server), PictureLimits())
    await collect(wire.stream(ChatRequest(G3, shaped)))
    contents = server.chat_requests()[0]["contents"]
    responses = [c["parts"][0]["functionResponse"] for c in contents[2::2]]
    line = aged_line(ToolResult("c0", "screenshot"))
    assert [r["response"]["output"] for r in responses] == [
        f"red\n{line}",
        f"orange\n{line}",
        "yellow",
        "green",
        "blue",
    ]
    assert [r.get("parts") for r in responses] == [
        None,
        None,
        *([blob(make_picture(c).data)] for c in colours[2:]),
    ]


# -- thought signatures -------------------------------------------------------------


def test_signed_parts_go_back_as_the_model_sent_them() -> None:
    carried = CarriedPart(
        "gemini",
        f"g:{G3}",
        {
            "parts": [
                {"text": "Let me look.", "thoughtSignature": "sig-text"},
                {"functionCall": {"name": "screenshot", "id": "c1"}, "thoughtSignature": "sig-1"},
                {"functionCall": {"name": "screenshot", "id": "c2"}},
            ]
        },
    )
    other = CarriedPart("gemini", f"g:{G25}", {"parts": [{"text": "x", "thoughtSignature": "no"}]})
    answer = Message(
        "assistant",
        (
            TextPart("Let me look."),
            ToolCall("c1", "screenshot", {"window": "a"}),
            ToolCall("c2", "screenshot", {"window": "b"}),
            other,
            carried,
        ),
    )
    body = build_gemini_body(ChatRequest(G3, (user_message("go"), answer)), f"g:{G3}")
    assert body["contents"][1] == {
        "role": "model",
        "parts": [
            {"text": "Let me look.", "thoughtSignature": "sig-text"},
            {
                "functionCall": {"name": "screenshot", "id": "c1", "args": {"window": "a"}},
                "thoughtSignature": "sig-1",
            },
            {"functionCall": {"name": "screenshot", "id": "c2", "args": {"window": "b"}}},
        ],
    }


async def turn(
    server: FakeGemini, tmp_path: Path, text: str, model: str, **kw: Any
) -> tuple[Store, list[TurnEvent]]:
    """One turn of the runner against the server, into a real store."""
    return await runner_turn(
        ProviderConfig("g", "gemini", server.base_url, api_key=DEFAULT_KEY),
        tmp_path,
        text,
        model,
        **kw,
    )


async def test_a_turn_sends_the_signature_back_and_gemini_3_accepts_it(
    server: FakeGemini, tmp_path: Path
) -> None:
    """The loopback Gemini 3 refuses a call without its signature, as the real one does."""
    server.enqueue(Reply(tool_calls=[{"name": "screenshot", "args": {"window": "a"}}]))
    store, events = await turn(
        server, tmp_path, "what colour?", f"g:{G3}", tools=[PictureTool(SHOT)]
    )
    assert isinstance(events[-1], TurnEnded) and events[-1].error is None, events[-1]
    _, second = server.chat_requests()  # the server checked the signature: it answered
    model_turn = second["contents"][1]
    assert model_turn["role"] == "model"
    [call] = model_turn["parts"]
    assert call["thoughtSignature"] in server.signatures
    assert call["functionCall"]["args"] == {"window": "a"}
    response = second["contents"][2]["parts"][0]["functionResponse"]
    assert response["parts"] == [blob(make_picture("green").data)]
    [cid] = [c.id for c in store.conversations.list()]
    kept = store.messages(cid)[1].carried("gemini", f"g:{G3}")
    assert kept[0].data["parts"][0]["thoughtSignature"] == call["thoughtSignature"]
    store.close()


async def test_without_its_signature_gemini_3_refuses_the_call() -> None:
    answer = Message("assistant", (ToolCall("c1", "screenshot", {}),))  # no CarriedPart
    messages = (user_message("go"), answer, Message("tool", (ToolResult("c1", "screenshot"),)))
    with FakeGemini() as server:
        wire = wire_to(server.base_url)
        try:
            _, error = await failure(wire.stream(ChatRequest(G3, messages)))
        finally:
            await wire.aclose()
    assert isinstance(error, BadRequest) and "Sightline bug" in error.message
    assert MISSING_SIGNATURE.format(name="screenshot", n=2)[:60] in error.detail


async def test_a_picture_gemini_cannot_use_heals_in_words(
    server: FakeGemini, tmp_path: Path
) -> None:
    server.enqueue(
        error_reply(400, "INVALID_ARGUMENT", "Unable to process input image. Please retry.")
    )
    store, events = await turn(
        server, tmp_path, "what is it?", f"g:{G25}", pictures=(make_picture(),)
    )
    assert isinstance(events[-1], TurnEnded) and events[-1].error is None
    asked = [r for r in server.received(server.is_chat) if G25 in r.path]
    refused, healed = asked[0].body, asked[-1].body
    assert "inlineData" in refused["contents"][0]["parts"][1]
    assert all("inlineData" not in p for p in healed["contents"][0]["parts"])
    [cid] = [c.id for c in store.conversations.list()]
    assert NoticeKind.HEAL in [i.item.kind for i in store.items(cid) if hasattr(i.item, "kind")]
    store.close()


# -- the stream ----------------------------------------------------------------------


def state() -> StreamState:
    return StreamState(provider=ProviderConfig("g", "gemini", ""), source=f"g:{G3}", model=G3)


def chunk(*parts: dict[str, Any], **candidate: Any) -> dict[str, Any]:
    return {
        "candidates": [
            {"content": {"role": "model", "parts": list(parts)}, "index": 0, **candidate}
        ]
    }


def test_calls_without_an_id_get_one_of_sightline_s_and_thoughts_stay_unseen() -> None:
    s = state()
    events = parse_chunk(chunk({"text": "pondering", "thought": True, "thoughtSignature": "t1"}), s)
    events += parse_chunk(chunk({"text": "Sure."}), s)
    events += parse_chunk(chunk({"functionCall": {"name": "f", "args": {"q": 1}}}), s)
    events += parse_chunk(
        {
            **chunk(finishReason="STOP"),
            "usageMetadata": {
                "promptTokenCount": 5,
                "candidatesTokenCount": 2,
                "thoughtsTokenCount": 7,
            },
        },
        s,
    )
    [delta, call] = events
    assert delta == TextDelta("Sure.")
    assert isinstance(call, ToolCallEvent) and call.call.id.startswith(INVENTED)
    assert call.call.arguments == {"q": 1}
    assert finish_stream(s) == [
        Carried(
            CarriedPart(
                "gemini",
                f"g:{G3}",
                {
                    "parts": [
                        {"text": "pondering", "thought": True, "thoughtSignature": "t1"},
                        {"text": "Sure."},
                        {"functionCall": {"name": "f"}},
                    ]
                },
            )
        ),
        Usage(5, 9),
        Done("tool_calls"),
    ]


async def test_an_answer_cut_short_by_its_length(wire: GeminiWire, server: FakeGemini) -> None:
    server.enqueue(Reply(text="Half", finish_reason="MAX_TOKENS"))
    assert (await collect(wire.stream(ask())))[-1] == Done("max_tokens")


async def test_unsigned_answers_carry_nothing(wire: GeminiWire, server: FakeGemini) -> None:
    events = await collect(wire.stream(ask(model=G25)))
    assert not any(isinstance(e, Carried) for e in events)


async def test_a_blocked_prompt_says_so(wire: GeminiWire, server: FakeGemini) -> None:
    server.enqueue(Reply(block_reason="SAFETY"))
    _, error = await failure(wire.stream(ask()))
    assert "blocked: SAFETY" in error.message and "\n" not in error.message


async def test_words_then_an_error_chunk(wire: GeminiWire, server: FakeGemini) -> None:
    failed = {
        "error": {"code": 500, "status": "INTERNAL", "message": "An internal error has occurred."}
    }
    server.enqueue(Reply(text="So far", midstream_error=failed))
    said, error = await failure(wire.stream(ask()))
    assert said == "So far" and isinstance(error, ServerError)


async def test_a_stream_without_a_finish_is_cut_off(wire: GeminiWire, server: FakeGemini) -> None:
    server.enqueue(Reply(text="So far", finish=False))
    said, error = await failure(wire.stream(ask()))
    assert said == "So far" and isinstance(error, ServerError) and "cut off" in error.message


async def test_a_chunk_that_is_not_json(wire: GeminiWire, server: FakeGemini) -> None:
    server.enqueue(Reply(text="Before", raw_events=["{not json"]))
    said, error = await failure(wire.stream(ask()))
    assert said == "Before" and isinstance(error, MalformedResponse) and "{not json" in error.detail


def test_a_whole_answer_as_a_json_array() -> None:
    wire = wire_to("https://generativelanguage.googleapis.com")
    text = json.dumps([chunk({"text": "Hel"}), chunk({"text": "lo"}, finishReason="STOP")])
    assert wire._whole_body(text, state()) == [TextDelta("Hel"), TextDelta("lo"), Done("stop")]


# -- errors ---------------------------------------------------------------------------


async def test_a_wrong_key_and_no_key(server: FakeGemini) -> None:
    wrong = wire_to(server.base_url, key="AIza-wrong")
    try:
        _, error = await failure(wrong.stream(ask()))
    finally:
        await wrong.aclose()
    assert isinstance(error, KeyProblem) and "GEMINI_API_KEY" in error.message
    assert "AIza-wrong" not in error.message
    keyless = wire_to(server.base_url, key="")
    with pytest.raises(KeyProblem):
        await collect(keyless.stream(ask()))
    await keyless.aclose()
    assert len(server.chat_requests()) == 1  # no key: nothing was sent


async def test_an_unknown_model_lists_what_there_is(wire: GeminiWire) -> None:
    _, error = await failure(wire.stream(ask(model="gemini-9")))
    assert isinstance(error, ModelNotFound)
    assert G3 in error.available and "text-embedding-004" not in error.available


async def test_a_request_too_large() -> None:
    with FakeGemini(payload_limit=200) as server:
        wire = wire_to(server.base_url)
        try:
            _, error = await failure(wire.stream(ask("x" * 300)))
        finally:
            await wire.aclose()
    assert isinstance(error, BadRequest) and "too large for Gemini" in error.message
    assert "Request payload size exceeds the limit: 200 bytes." in error.detail


async def test_a_per_minute_limit_is_waited_out(wire: GeminiWire, server: FakeGemini) -> None:
    limited = error_reply(
        429,
        "RESOURCE_EXHAUSTED",
        "You exceeded your current quota, please check your plan and billing details.",
        quota_failure("GenerateRequestsPerMinutePerProjectPerModel-FreeTier"),
        retry_info("0.05s"),
    )
    server.enqueue(limited, Reply(text="ok"))
    assert text_of(await collect(wire.stream(ask()))) == "ok"


async def test_a_daily_quota_is_not_waited_out(wire: GeminiWire, server: FakeGemini) -> None:
    server.enqueue(
        error_reply(
            429,
            "RESOURCE_EXHAUSTED",
            "You exceeded your current quota.",
            quota_failure("GenerateRequestsPerDayPerProjectPerModel-FreeTier"),
            retry_info("3s"),
        )
    )
    _, error = await failure(wire.stream(ask()))
    assert isinstance(error, QuotaExhausted) and len(server.chat_requests()) == 1


async def test_rate_limited_past_the_retries(wire: GeminiWire, server: FakeGemini) -> None:
    limited = error_reply(
        429, "RESOURCE_EXHAUSTED", "Resource has been exhausted.", retry_info("0.01s")
    )
    server.enqueue(limited, limited, limited)
    _, error = await failure(wire.stream(ask()))
    assert isinstance(error, RateLimited) and error.retry_after == pytest.approx(0.01)


# -- models, addresses, choosing the wire ------------------------------------------------


async def test_the_model_list_pages_filters_and_reads_pdfs() -> None:
    with FakeGemini(page_size=2) as server:
        wire = wire_to(server.base_url)
        try:
            models = await wire.list_models()
        finally:
            await wire.aclose()
        pages = [p for p in server.paths() if p.startswith("GET")]
    assert [(m.name, m.label, m.context_length) for m in models] == [
        (G3, "Gemini 3 Pro Preview", 1_048_576),
        (G25, "Gemini 2.5 Flash", 1_048_576),
        ("gemini-2.0-flash", "Gemini 2.0 Flash", 1_048_576),
    ]
    assert pages == [
        "GET /v1beta/models?pageSize=1000",
        "GET /v1beta/models?pageSize=1000&pageToken=2",
    ]
    answer = resolved(models[0], "gemini")
    assert answer.sees is True and answer.tools is True and answer.reads_pdfs is True


@pytest.mark.parametrize(
    ("configured", "located"),
    [
        ("", "https://generativelanguage.googleapis.com/v1beta"),
        (
            "https://generativelanguage.googleapis.com/v1beta/openai/",
            "https://generativelanguage.googleapis.com/v1beta",
        ),
        ("http://127.0.0.1:8091", "http://127.0.0.1:8091/v1beta"),
        ("https://proxy.example/gemini/v1", "https://proxy.example/gemini/v1"),
    ],
)
def test_where_it_asks(configured: str, located: str) -> None:
    assert wire_to(configured).base_url == located


@pytest.mark.parametrize(
    ("table", "wire_class", "url"),
    [
        ({"kind": "gemini"}, GeminiWire, "https://generativelanguage.googleapis.com/v1beta"),
        (
            {"kind": "gemini", "api": "chat"},
            OpenAIChatWire,
            "https://generativelanguage.googleapis.com/v1beta/openai",
        ),
    ],
)
def test_the_gemini_preset_and_its_compatibility_endpoint(
    table: dict[str, Any], wire_class: type, url: str
) -> None:
    [provider] = parse_config({"providers": [table]}, Path("config.toml"), Path("data")).providers
    assert provider.base_url == url and type(make_wire(provider)) is wire_class
    keyless = ProviderConfig("g", "gemini", "", api="chat")
    assert type(make_wire(keyless)) is OpenAIChatWire


def test_gemini_has_no_responses_api() -> None:
    with pytest.raises(ConfigError) as raised:
        parse_config(
            {"providers": [{"kind": "gemini", "api": "responses"}]}, Path("c.toml"), Path("d")
        )
    assert "Gemini has no Responses API" in str(raised.value)


async def test_an_invalid_picture_is_a_picture_refusal(
    wire: GeminiWire, server: FakeGemini
) -> None:
    broken = Picture(data=b"not a picture", mime="image/png", width=4, height=4, sha256="x")
    _, error = await failure(wire.stream(ask(pictures=(broken,))))
    assert isinstance(error, PicturesRefused) and "Provided image is not valid." in error.detail


# -- `sightline ask`, end to end ----------------------------------------------------------


def test_sightline_ask_against_gemini_3_with_a_tool_picture(tmp_path: Path) -> None:
    """A whole `sightline ask` process: the key from GEMINI_API_KEY, the native wire, the
    tool's picture inside its function response, the call's signature sent back."""
    picture = tmp_path / "red.png"
    picture.write_bytes(make_picture("red").data)
    config = tmp_path / "config.toml"
    with FakeGemini() as server:
        config.write_text(
            f'discover_local = false\n[[providers]]\nid = "g"\nkind = "gemini"\n'
            f'base_url = "{server.base_url}"\nlocal = false\n'
        )
        server.enqueue(Reply(tool_calls=[{"name": "read_file", "args": {"path": str(picture)}}]))
        env = {"SIGHTLINE_CONFIG": str(config), "SIGHTLINE_DATA_DIR": str(tmp_path / "data")}
        done = sightline(
            os.environ | env | {"GEMINI_API_KEY": DEFAULT_KEY},
            "ask",
            "--allow-tools",
            "--model",
            f"g:{G3}",
            "What colour is red.png?",
        )
        requests = server.chat_requests()
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("Tools answered 1 calls (1 pictures inside, 0 after)\n")
    _, second = requests
    call = second["contents"][1]["parts"][0]
    assert call["thoughtSignature"] in server.signatures
    assert call["functionCall"]["name"] == "read_file"
