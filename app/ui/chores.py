"""Work the window runs in the background on the asyncio loop, each task held until it ends.

The loop keeps only a weak reference to a task, so one nobody holds may be collected
half-way; and nobody awaits it, so what it fails with is logged here. The window's
parts stop theirs as they close. asyncio loads with the first chore, not at import:
the window paints before it loads.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

log = logging.getLogger(__name__)


class Chores:
    """The background tasks of one part of the window."""

    def __init__(self) -> None:
        """None yet."""
        self._running: set[asyncio.Task[Any]] = set()

    def run(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run `work` on the loop, held until it ends; a failure is logged."""
        import asyncio

        task = asyncio.ensure_future(work)
        self._running.add(task)
        task.add_done_callback(self._ended)
        return task

    def _ended(self, task: asyncio.Task[Any]) -> None:
        self._running.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a background task failed", exc_info=task.exception())

    def cancel(self) -> None:
        """Cancel what still runs (each hears of it at its next step)."""
        for task in self._running:
            task.cancel()

    async def stop(self) -> None:
        """Cancel what still runs and wait until each has ended."""
        import asyncio

        for task in list(self._running):  # each one's end takes it out of the set
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
