"""Tool pictures in each provider's own shape, aged and clamped, over real loopback HTTP.

SPEC §3: Anthropic keeps them inside the tool_result after its text; the OpenAI
shape and Ollama carry a step's pictures in one user message after its tool
messages (Mistral with an empty assistant message between, in the request only);
a text-only tool result goes out exactly as before; only the newest three tool
pictures stay pictures.
"""

from __future__ import annotations

import base64
import io

from PIL import Image

from routing.models import ProviderConfig
from routing.presets import preset_for
from routing.shaping import KEEP_TOOL_PICTURES, PictureLimits, aged_line, shape_messages
from routing.transcript import (
    Message,
    PicturePart,
    TextPart,
    ToolCall,
    ToolResult,
    tool_pictures_text,
    turn_start,
    user_message,
)
from routing.wires.anthropic import AnthropicWire
from routing.wires.base import ChatRequest
from routing.wires.ollama import OllamaWire
from routing.wires.openai_chat import OpenAIChatWire, build_chat_body
from tests.events import collect
from tests.pictures import make_picture
from tests.servers.anthropic import DEFAULT_KEY, FakeAnthropic
from tests.servers.ollama import FakeOllama
from tests.servers.openai_chat import FakeOpenAI
from vision.pictures import Picture, sniff


def b64(picture: Picture) -> str:
    return base64.b64encode(picture.data).decode("ascii")


RED = make_picture("red", (8, 8))
WEATHER = ToolResult("c1", "get_weather", (TextPart("sunny"),))
SCREEN = ToolResult("c2", "screenshot", (TextPart("1280×800 pixels"), PicturePart(RED)))


def one_step() -> tuple[Message, ...]:
    """A person's question, a step with two tool calls, and their two results."""
    calls = (ToolCall("c1", "get_weather", {"city": "Oslo"}), ToolCall("c2", "screenshot", {}))
    return (
        user_message("what is on my screen?"),
        Message("assistant", calls),
        Message("tool", (WEATHER, SCREEN)),
    )


async def test_openai_shape_follows_tool_messages_with_one_picture_message() -> None:
    with FakeOpenAI() as server:
        wire = OpenAIChatWire(ProviderConfig("oa", "custom", server.url))
        await collect(wire.stream(ChatRequest("gpt-4o-mini", one_step())))
        await wire.aclose()
    body = server.requests[-1][2]
    assert body["messages"][2:] == [
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "c2", "content": "1280×800 pixels"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": tool_pictures_text([(SCREEN, RED)])},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64(RED)}"}},
            ],
        },
    ]


def test_mistral_bridges_tool_and_picture_messages_in_the_request_only() -> None:
    messages = one_step()
    body = build_chat_body(ChatRequest("pixtral-12b", messages), preset_for("mistral"))
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "tool", "tool", "assistant", "user"]
    assert body["messages"][4] == {"role": "assistant", "content": ""}
    assert [m.role for m in messages] == ["user", "assistant", "tool"]  # the transcript stays


async def test_ollama_carries_tool_pictures_in_images_of_a_following_user_message(
    fake_ollama: FakeOllama,
) -> None:
    wire = OllamaWire(ProviderConfig("ollama", "ollama", fake_ollama.base_url))
    await collect(wire.stream(ChatRequest("qwen2.5vl:3b", one_step())))
    await wire.aclose()
    sent = fake_ollama.chat_requests()[-1]["messages"]
    assert sent[-1] == {
        "role": "user",
        "content": tool_pictures_text([(SCREEN, RED)]),
        "images": [b64(RED)],
    }
    assert sent[-3:-1] == [
        {"role": "tool", "content": "sunny", "tool_name": "get_weather"},
        {"role": "tool", "content": "1280×800 pixels", "tool_name": "screenshot"},
    ]


async def test_anthropic_puts_the_picture_inside_its_tool_result_after_the_text() -> None:
    with FakeAnthropic() as server:
        wire = AnthropicWire(ProviderConfig("claude", "anthropic", server.base_url, DEFAULT_KEY))
        await collect(wire.stream(ChatRequest("claude-haiku-4-5-20251001", one_step())))
        await wire.aclose()
    body = server.message_requests()[-1].body
    assert body["messages"][-1] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "c1", "content": "sunny"},
            {
                "type": "tool_result",
                "tool_use_id": "c2",
                "content": [
                    {"type": "text", "text": "1280×800 pixels"},
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": b64(RED)},
                    },
                ],
            },
        ],
    }


def test_text_only_results_go_out_exactly_as_before() -> None:
    messages = (
        user_message("weather?"),
        Message("assistant", (ToolCall("c1", "get_weather", {"city": "Oslo"}),)),
        Message("tool", (WEATHER,)),
    )
    shaped = shape_messages(messages, PictureLimits())
    assert shaped == messages
    body = build_chat_body(ChatRequest("m", shaped), preset_for("openai"))
    assert body["messages"][-1] == {"role": "tool", "tool_call_id": "c1", "content": "sunny"}
    assert all(isinstance(m["content"], str | None) for m in body["messages"])


def five_screenshots() -> tuple[Message, ...]:
    colours = ("red", "orange", "yellow", "green", "blue")
    messages: list[Message] = [user_message("click through the wizard")]
    for number, colour in enumerate(colours):
        call = ToolCall(f"s{number}", "screenshot", {})
        result = ToolResult(
            f"s{number}", "screenshot", (TextPart("ok"), PicturePart(make_picture(colour, (8, 8))))
        )
        messages += [Message("assistant", (call,)), Message("tool", (result,))]
    return tuple(messages)


def test_only_the_newest_three_tool_pictures_stay_pictures() -> None:
    shaped = shape_messages(five_screenshots(), PictureLimits())
    kept = [r.pictures[0].label if r.pictures else r.text for m in shaped for r in m.tool_results]
    line = aged_line(ToolResult("x", "screenshot"))
    assert kept == [f"ok\n{line}", f"ok\n{line}", "yellow.png", "green.png", "blue.png"]
    assert KEEP_TOOL_PICTURES == 3


def test_aged_pictures_leave_the_request_in_every_wire_shape() -> None:
    body = build_chat_body(
        ChatRequest("m", shape_messages(five_screenshots(), PictureLimits())), preset_for("openai")
    )
    picture_messages = [m for m in body["messages"] if isinstance(m["content"], list)]
    assert len(picture_messages) == 3  # one per step that still has its picture


def test_pictures_are_clamped_to_the_providers_side_limit() -> None:
    big = make_picture("white", (3000, 1000))
    messages = (user_message("look", (big,)),)
    [shaped] = shape_messages(messages, PictureLimits(max_side=1568))
    [picture] = shaped.pictures
    assert (picture.width, picture.height) == (1500, 500)  # halved: within the 1568 limit


def test_a_picture_that_cannot_fit_becomes_a_note_in_the_message() -> None:
    noise = Image.frombytes("RGB", (400, 400), bytes(range(256)) * 1875)
    buffer = io.BytesIO()
    noise.save(buffer, format="PNG")
    messages = (user_message("what is this", (sniff(buffer.getvalue(), "noise.png"),)),)
    [shaped] = shape_messages(messages, PictureLimits(max_bytes=500))
    assert shaped.pictures == ()
    assert shaped.text.startswith("what is this\n[noise.png")


def test_the_tool_pictures_message_is_mid_turn() -> None:
    marker = user_message(tool_pictures_text([(SCREEN, RED)]), (RED,))
    messages = (*one_step(), marker)
    assert turn_start(messages) == 0  # the person's question, not the pictures message
