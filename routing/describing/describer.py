"""The describer: a seeing model puts a picture into words, once per picture.

Descriptions are kept in memory by the picture's SHA-256 (256 of them, least
recently used out first) and never written to disk; callers asking about the
same picture at the same time share one request, which is cancelled once none of
them waits for it any more. Who looks is decided by the router; this module only
asks and remembers.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from dataclasses import dataclass
from typing import Protocol

from cachetools import LRUCache

from vision.pictures import Picture

log = logging.getLogger(__name__)

CACHE_SIZE = 256
MAX_FOCUS_CHARS = 600


@dataclass(frozen=True)
class Description:
    """What a looker said about a picture, and what saying it cost."""

    text: str
    looker: str
    input_tokens: int = 0
    output_tokens: int = 0


class DescriptionFailed(Exception):
    """No usable description: the looker failed, timed out or said nothing (detail: log only)."""


class Looker(Protocol):
    """A seeing model that can be asked to describe one picture."""

    @property
    def label(self) -> str:
        """The model, as `provider:model`."""
        ...

    @property
    def host(self) -> str:
        """Where it runs (host:port), for disclosure notices."""
        ...

    async def look(self, picture: Picture, focus: str) -> Description:
        """Describe the picture; raise DescriptionFailed when it can't."""
        ...


def bounded_focus(*pieces: str) -> str:
    """A focus hint from the tool name, labels and text, cut to a bounded length."""
    text = "\n".join(p.strip() for p in pieces if p and p.strip())
    return text if len(text) <= MAX_FOCUS_CHARS else text[: MAX_FOCUS_CHARS - 1] + "…"


class Describer:
    """Asks lookers for descriptions, keeping each picture's in memory."""

    def __init__(self, capacity: int = CACHE_SIZE, timeout: float = 120.0) -> None:
        self.capacity = capacity
        self.timeout = timeout
        self._kept: LRUCache[str, Description] = LRUCache(maxsize=capacity)
        self._asking: dict[str, asyncio.Task[Description]] = {}
        self._waiting: dict[asyncio.Task[Description], int] = {}  # callers per request
        self.requests = 0  # descriptions actually asked for (not served from memory)

    def cached(self, sha256: str) -> Description | None:
        """A description already made for this picture, if still kept."""
        return self._kept.get(sha256)

    async def describe(self, picture: Picture, looker: Looker, focus: str = "") -> Description:
        """The picture in words; a fresh description carries its usage, a kept one none."""
        kept = self.cached(picture.sha256)
        if kept is not None:
            return Description(kept.text, kept.looker)
        task = self._asking.get(picture.sha256)
        if task is None:
            task = asyncio.ensure_future(self._ask(picture, looker, bounded_focus(focus)))
            self._asking[picture.sha256] = task
            task.add_done_callback(functools.partial(self._settled, picture.sha256))
            # Whoever started the request gets the usage; those who joined it get none.
            return await self._wait(picture.sha256, task)
        description = await self._wait(picture.sha256, task)
        return Description(description.text, description.looker)

    async def _wait(self, sha256: str, task: asyncio.Task[Description]) -> Description:
        """Await a shared request: one caller leaving doesn't stop it, the last one does."""
        self._waiting[task] = self._waiting.get(task, 0) + 1
        try:
            return await asyncio.shield(task)
        finally:
            self._waiting[task] -= 1
            if not self._waiting[task]:
                del self._waiting[task]
                if not task.done():
                    # Nobody wants it any more (Stop): free the looker, and let a later
                    # ask start afresh instead of joining a request on its way out.
                    if self._asking.get(sha256) is task:
                        del self._asking[sha256]
                    task.cancel()

    def _settled(self, sha256: str, task: asyncio.Task[Description]) -> None:
        if self._asking.get(sha256) is task:
            del self._asking[sha256]
        if not task.cancelled():
            task.exception()  # retrieved here, so a failure nobody awaited isn't "lost"

    async def _ask(self, picture: Picture, looker: Looker, focus: str) -> Description:
        self.requests += 1
        try:
            description = await asyncio.wait_for(looker.look(picture, focus), self.timeout)
        except TimeoutError:
            raise DescriptionFailed(f"{looker.label} took longer than {self.timeout:g} s") from None
        if not description.text.strip():
            raise DescriptionFailed(f"{looker.label} gave an empty description")
        self._kept[picture.sha256] = description
        return description
