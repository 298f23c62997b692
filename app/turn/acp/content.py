"""Between Sightline's parts and the protocol's content blocks, both ways, within bounds.

Out: the person's words as a `text` block, pictures as `image` blocks (a plain
format, clamped) for an agent that takes them. In: what a tool call carries —
words, pictures, diffs, terminals, links — as a tool result's parts, so the
window's tool rows show them and a later model gets them. A picture that can't be
opened becomes a line saying so; nothing the agent sends can stop the turn. A large
picture is opened on a worker thread before its update is read (`open_ahead`): the
turn runs on the window's thread, and opening a 4K screenshot safely decodes it whole
(~60 ms).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import difflib
import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from acp import image_block, text_block
from acp.schema import ImageContentBlock, TextContentBlock

from routing.transcript import Message, PicturePart, ResultPart, TextPart
from vision.pictures import Picture, PictureError, clamp, sniff

log = logging.getLogger(__name__)

MAX_RESULT_TEXT = 200_000  # characters of one tool result kept
MAX_RESULT_PICTURES = 8  # pictures of one tool result kept
MAX_PICTURE_BYTES = 20_000_000  # one picture's decoded bytes, before it is opened
AHEAD_CHARACTERS = 100_000  # base64 of a picture opened on a worker thread (smaller: µs)
MAX_DIFF_LINES = 2_000

PromptBlock = TextContentBlock | ImageContentBlock


def prompt_blocks(message: Message, *, with_pictures: bool) -> list[PromptBlock]:
    """The message as a prompt: its words, then its pictures when the agent takes them."""
    blocks: list[PromptBlock] = []
    if message.text:
        blocks.append(text_block(message.text))
    if with_pictures:
        for picture in message.pictures:
            sent = clamp(picture)
            blocks.append(image_block(base64.b64encode(sent.data).decode("ascii"), sent.mime))
    if not blocks:
        blocks.append(text_block(""))
    return blocks


def tool_parts(
    content: Iterable[Any] | None,
    raw_output: Any = None,
    opened: Mapping[str, ResultPart] | None = None,
) -> tuple[ResultPart, ...]:
    """A tool call's content as result parts: words, pictures, diffs (bounded); a picture
    in `opened` (by its base64) as it was opened ahead."""
    parts: list[ResultPart] = []
    pictures = 0
    for item in content or ():
        kind = getattr(item, "type", "")
        if kind == "content":
            block = item.content
            if getattr(block, "type", "") == "image" and pictures < MAX_RESULT_PICTURES:
                data = getattr(block, "data", "")
                found = (opened or {}).get(data) if isinstance(data, str) else None
                parts.append(found or _picture(data, getattr(block, "uri", None)))
                pictures += 1
            else:
                text = block_text(block)
                if text:
                    parts.append(TextPart(text))
        elif kind == "diff":
            parts.append(TextPart(_diff(item.path, item.old_text, item.new_text)))
        elif kind == "terminal":
            parts.append(TextPart(f"(the agent's terminal {item.terminal_id})"))
    if not parts and raw_output is not None:
        parts.append(TextPart(_json_text(raw_output)))
    return _bounded(parts)


async def open_ahead(updates: Iterable[Any], opened: dict[str, ResultPart]) -> None:
    """The large pictures these `session/update`s carry, opened on a worker thread into
    `opened` (by their base64), so `tool_parts` finds them there."""
    for update in updates:
        for item in getattr(update, "content", None) or ():
            block = getattr(item, "content", None)
            data = getattr(block, "data", None)
            if getattr(block, "type", "") != "image" or not isinstance(data, str):
                continue
            if len(data) > AHEAD_CHARACTERS and data not in opened:
                uri = getattr(block, "uri", None)
                opened[data] = await asyncio.to_thread(_picture, data, uri)


def block_text(block: Any) -> str:
    """A content block's words: text as it is; a link, resource or sound as a line."""
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(block.text)
    if kind == "resource_link":
        return f"{block.name}: {block.uri}"
    if kind == "resource":
        inner = block.resource
        text = getattr(inner, "text", None)
        return str(text) if text is not None else f"(a file: {inner.uri})"
    if kind == "audio":
        return "(a sound the agent sent; Sightline doesn't play sounds)"
    if kind == "image":
        return "(a picture)"
    return ""


def _picture(data: str, uri: str | None) -> ResultPart:
    """A picture from base64, opened safely; a line saying why when it can't be."""
    label = (uri or "picture from the agent").rsplit("/", 1)[-1][:200]
    try:
        if len(data) > MAX_PICTURE_BYTES * 4 // 3 + 4:
            raise PictureError(f"{label} is larger than {MAX_PICTURE_BYTES // 1_000_000} MB")
        picture: Picture = sniff(base64.b64decode(data, validate=True), label)
    except (PictureError, binascii.Error, ValueError) as exc:
        log.info("a picture from the agent could not be opened: %s", exc)
        return TextPart(f"(a picture the agent sent could not be opened: {exc})")
    return PicturePart(picture)


def _diff(path: str, old: str | None, new: str) -> str:
    """A file edit as a unified diff (a new file: all of it added)."""
    lines = list(
        difflib.unified_diff(
            (old or "").splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=f"a/{path}" if old is not None else "/dev/null",
            tofile=f"b/{path}",
        )
    )
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"… {len(lines) - MAX_DIFF_LINES} more lines\n"]
    return "".join(lines) or f"{path}: unchanged"


def _json_text(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=str)[:MAX_RESULT_TEXT]
    except (ValueError, RecursionError):
        return "(output Sightline could not read)"


def _bounded(parts: Sequence[ResultPart]) -> tuple[ResultPart, ...]:
    """Words beyond MAX_RESULT_TEXT cut, with a line saying so."""
    kept: list[ResultPart] = []
    room = MAX_RESULT_TEXT
    for part in parts:
        if isinstance(part, TextPart):
            if room <= 0:
                continue
            if len(part.text) > room:
                part = TextPart(part.text[:room] + "\n… (cut: the rest was too long to keep)")
            room -= len(part.text)
        kept.append(part)
    return tuple(kept)
