"""The request a wire gets: the transcript with its pictures made fit to send.

Shaping never changes what is stored. It ages tool pictures (only the newest
few, and all of the latest step's, stay pictures: every picture is paid for
again on every later request) and
clamps each picture to the provider's limits, replacing one that can't fit with
a note that says why. A turn clamps what it will send on a worker thread first
(`clamp_ahead`): it runs on the window's thread, which a 4K screenshot's clamp
(~90 ms) would hold.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass, replace

from cachetools import LRUCache

from routing.transcript import (
    Message,
    Part,
    PicturePart,
    ResultPart,
    TextPart,
    ToolCall,
    ToolResult,
)
from routing.wires.payload import bounded_arguments
from vision.pictures import MAX_SEND_BYTES, Picture, PictureError, PictureTooLarge, clamp

KEEP_TOOL_PICTURES = 3


@dataclass(frozen=True)
class PictureLimits:
    """How big a picture may leave for one provider."""

    max_side: int = 2048
    max_bytes: int = MAX_SEND_BYTES


class ClampCache:
    """Clamped pictures by (SHA-256, limits), so a long chat doesn't re-encode each turn."""

    def __init__(self, size: int = 128) -> None:
        self._size = size
        self._kept: LRUCache[tuple[str, PictureLimits], Picture | str] = LRUCache(maxsize=size)

    def clamp(self, picture: Picture, limits: PictureLimits) -> Picture | str:
        """The picture within the limits, or the note that replaces it."""
        key = (picture.sha256, limits)
        if key not in self._kept:
            self._kept[key] = _clamped(picture, limits)
        return self._kept[key]

    async def clamp_elsewhere(self, picture: Picture, limits: PictureLimits) -> None:
        """`clamp`, worked out on a worker thread (the cache is only touched here)."""
        key = (picture.sha256, limits)
        if key not in self._kept:
            self._kept[key] = await asyncio.to_thread(_clamped, picture, limits)


def _clamped(picture: Picture, limits: PictureLimits) -> Picture | str:
    """The picture within the limits, or the note that replaces it (any thread)."""
    try:
        return clamp(picture, max_side=limits.max_side, max_bytes=limits.max_bytes)
    except PictureTooLarge as exc:
        return str(exc)
    except PictureError as exc:  # damage that only re-encoding found
        return f"[{picture.label or 'A picture'} could not be sent: {exc}]"


_shared_cache = ClampCache()


def aged_line(result: ToolResult) -> str:
    """What an older tool picture becomes."""
    return (
        f"[A picture returned by {result.name} was here; only the newest "
        f"{KEEP_TOOL_PICTURES} tool pictures are sent again.]"
    )


def limits_for(max_side: int) -> PictureLimits:
    """The limits for a provider whose longest accepted side is `max_side`."""
    return PictureLimits(max_side=max_side)


def shape_messages(
    messages: tuple[Message, ...],
    limits: PictureLimits,
    *,
    keep_tool_pictures: int = KEEP_TOOL_PICTURES,
    cache: ClampCache | None = None,
) -> tuple[Message, ...]:
    """The messages as they should leave: older tool pictures aged, every picture clamped."""
    cache = cache or _shared_cache
    messages = answer_every_call(messages)
    budget = _tool_picture_budget(messages, keep_tool_pictures)
    shaped: list[Message] = []
    # Newest first, so the pictures that stay are the latest ones.
    for message in reversed(messages):
        if not message.carries_pictures and not message.tool_calls:
            shaped.append(message)  # words alone go as they are: most of a long chat's
            continue
        parts: list[Part] = []
        for part in reversed(message.parts):
            if isinstance(part, ToolResult) and part.pictures:
                inner: list[ResultPart] = []
                for piece in reversed(part.parts):
                    if isinstance(piece, PicturePart):
                        if budget > 0:
                            budget -= 1
                            inner.append(_fit(piece, limits, cache))
                        else:
                            inner.append(TextPart(aged_line(part)))
                    else:
                        inner.append(piece)
                part = replace(part, parts=tuple(reversed(inner)))
            elif isinstance(part, PicturePart):
                part = _fit(part, limits, cache)
                if isinstance(part, TextPart):  # a note among the person's own words
                    part = TextPart("\n" + part.text)
            elif isinstance(part, ToolCall):  # stored before the bound, it must still send
                part = replace(part, arguments=bounded_arguments(part.arguments))
            parts.append(part)
        parts.reverse()
        # A message none of whose parts changed goes as it is.
        same = all(new is old for new, old in zip(parts, message.parts, strict=True))
        shaped.append(message if same else replace(message, parts=tuple(parts)))
    return tuple(reversed(shaped))


async def clamp_ahead(
    messages: tuple[Message, ...],
    limits: PictureLimits,
    *,
    keep_tool_pictures: int = KEEP_TOOL_PICTURES,
    cache: ClampCache | None = None,
) -> None:
    """Each picture `shape_messages` would send clamped on a worker thread, one at a time,
    so shaping then finds it done (the aged tool pictures, sent as words, are not)."""
    cache = cache or _shared_cache
    for picture in _sent_pictures(messages, keep_tool_pictures):
        await cache.clamp_elsewhere(picture, limits)


def _tool_picture_budget(messages: tuple[Message, ...], keep_tool_pictures: int) -> int:
    """How many of the newest tool pictures stay pictures: `keep_tool_pictures`, or all
    of the latest step's (four rendered PDF pages, say); older ones age."""
    newest = next((m for m in reversed(messages) if any(r.pictures for r in m.tool_results)), None)
    latest = sum(len(r.pictures) for r in newest.tool_results) if newest else 0
    return max(keep_tool_pictures, latest)


def _sent_pictures(messages: tuple[Message, ...], keep_tool_pictures: int) -> Iterator[Picture]:
    """The pictures `shape_messages` clamps: every one in a message, and the newest tool
    pictures within the budget."""
    budget = _tool_picture_budget(messages, keep_tool_pictures)
    for message in reversed(messages):
        if not message.carries_pictures:
            continue
        for part in reversed(message.parts):
            if isinstance(part, PicturePart):
                yield part.picture
            elif isinstance(part, ToolResult):
                for piece in reversed(part.parts):
                    if isinstance(piece, PicturePart) and budget > 0:
                        budget -= 1
                        yield piece.picture


def _fit(part: PicturePart, limits: PictureLimits, cache: ClampCache) -> TextPart | PicturePart:
    fitted = cache.clamp(part.picture, limits)
    return TextPart(fitted) if isinstance(fitted, str) else PicturePart(fitted)


UNANSWERED = "[No result: Sightline stopped before this tool call finished.]"


def answer_every_call(messages: tuple[Message, ...]) -> tuple[Message, ...]:
    """Give any tool call left without a result (a crash mid-step) one, in the request only.

    Every API refuses a transcript in which a tool call has no answer, so one
    interrupted step would otherwise break the conversation for good.
    """
    out: list[Message] = []
    index = 0
    while index < len(messages):
        message = messages[index]
        out.append(message)
        index += 1
        if not message.tool_calls:
            continue
        answered: set[str] = set()
        while index < len(messages) and messages[index].role == "tool":
            answered.update(r.call_id for r in messages[index].tool_results)
            out.append(messages[index])
            index += 1
        missing = [c for c in message.tool_calls if c.id not in answered]
        if missing:
            out.append(
                Message(
                    "tool",
                    tuple(
                        ToolResult(c.id, c.name, (TextPart(UNANSWERED),), is_error=True)
                        for c in missing
                    ),
                )
            )
    return tuple(out) if len(out) != len(messages) else messages
