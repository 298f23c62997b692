"""asyncio on Qt's event loop (qasync), with the care asyncio's own loops take of async generators.

qasync runs `QApplication.exec()` instead of `BaseEventLoop.run_forever`, so it
never installs asyncio's async-generator hooks. Without them an async generator
dropped half-way (httpx's `aiter_lines` after a wire's last event, say) is
finalized by the garbage collector in whatever task happens to be running,
which breaks anyio's cancel scopes. With them, as under `asyncio.run`, it is
closed in a task of its own.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def new_loop(app: Any) -> asyncio.AbstractEventLoop:
    """An asyncio loop driven by the Qt application's event loop."""
    import qasync

    loop: asyncio.AbstractEventLoop = qasync.QEventLoop(app)
    return loop


@contextmanager
def async_generators_finalized_by(loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """While inside, dropped async generators are closed on `loop`, as asyncio's loops do."""
    firstiter = getattr(loop, "_asyncgen_firstiter_hook", None)
    finalizer = getattr(loop, "_asyncgen_finalizer_hook", None)
    if firstiter is None or finalizer is None:  # not a BaseEventLoop: nothing to borrow
        yield
        return
    previous = sys.get_asyncgen_hooks()
    sys.set_asyncgen_hooks(firstiter=firstiter, finalizer=finalizer)
    try:
        yield
    finally:
        sys.set_asyncgen_hooks(*previous)
