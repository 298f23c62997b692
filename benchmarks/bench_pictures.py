"""Pictures: clamping a 4K screenshot, and what aging saves over a 20-screenshot tool loop."""

from __future__ import annotations

import io
import json
import random
from statistics import median

from PIL import Image, ImageDraw

from benchmarks.common import Row, interleaved
from routing.presets import preset_for
from routing.shaping import ClampCache, PictureLimits, shape_messages
from routing.transcript import Message, PicturePart, TextPart, ToolCall, ToolResult, user_message
from routing.wires.base import ChatRequest
from routing.wires.openai_chat import build_chat_body
from tests.pictures import encoded
from vision.pictures import Picture, clamp, sniff


def screenshot(width: int, height: int, seed: int) -> Picture:
    """A desktop-like PNG: flat panels, buttons and labels (what real screenshots compress like)."""
    rng = random.Random(seed)
    image = Image.new("RGB", (width, height), (236, 236, 236))
    draw = ImageDraw.Draw(image)
    for _ in range(width * height // 40_000):
        x, y = rng.randrange(width - 200), rng.randrange(height - 60)
        colour = tuple(rng.randrange(256) for _ in range(3))
        draw.rectangle([x, y, x + rng.randrange(40, 200), y + rng.randrange(16, 60)], fill=colour)
        draw.text((x + 4, y + 4), f"Button {rng.randrange(1000)}", fill="black")
    return sniff(encoded(image, "PNG"), label=f"screen-{seed}.png")


def tool_loop(steps: int) -> tuple[Message, ...]:
    """A turn in which a model takes `steps` screenshots, one per step."""
    messages: list[Message] = [user_message("Go through the settings and turn on dark mode.")]
    for step in range(steps):
        call = ToolCall(f"call_{step}", "screenshot", {})
        picture = screenshot(1280, 800, seed=step)
        result = ToolResult(call.id, "screenshot", (TextPart("1280×800"), PicturePart(picture)))
        messages += [Message("assistant", (call,)), Message("tool", (result,))]
    return tuple(messages)


def request_bytes(messages: tuple[Message, ...], keep: int) -> int:
    """Bytes of the JSON body an OpenAI-shape wire would send."""
    shaped = shape_messages(messages, PictureLimits(), keep_tool_pictures=keep, cache=ClampCache())
    body = build_chat_body(ChatRequest("gpt-4o", shaped), preset_for("openai"))
    return len(json.dumps(body).encode())


def _decoded(picture: Picture) -> None:
    with Image.open(io.BytesIO(picture.data)) as image:
        image.load()


def run() -> list[Row]:
    """Measure and return the rows."""
    shot = screenshot(3840, 2160, seed=4)
    # The floor: decoding the same PNG alone, which any clamp must do first.
    timed = interleaved(lambda: clamp(shot), lambda: _decoded(shot), runs=7)
    clamp_s = median(timed.ours)
    clamped = clamp(shot)
    loop = tool_loop(20)
    aged, everything = request_bytes(loop, keep=3), request_bytes(loop, keep=20)
    return [
        Row(
            "clamp a 3840×2160 screenshot PNG",
            clamp_s * 1000,
            "ms",
            "≤ 1.3× decoding it alone",
            f"decoding it alone: {median(timed.floor) * 1000:.0f} ms; {timed.ratios()}, "
            f"{len(timed.ours)} interleaved runs each; {shot.size_bytes // 1000} KB in → "
            f"{clamped.width}×{clamped.height}, {clamped.size_bytes // 1000} KB out",
        ),
        Row(
            "request bytes, 20-screenshot tool loop, newest 3 kept",
            aged / 1e6,
            "MB",
            "≤ 3/20 of all",
            f"all 20 kept: {everything / 1e6:.2f} MB; ratio {aged / everything:.3f} "
            f"(3/20 = {3 / 20:.3f}; the rest is words and JSON)",
        ),
    ]
