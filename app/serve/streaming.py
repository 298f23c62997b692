"""A turn's answer sent while the client is there, and stopped the moment it leaves.

Each request runs in its own task (uvicorn's); a turn is stopped by cancelling the task
that iterates it, as Stop does in the window. Both ways of answering watch the connection
themselves rather than waiting for a failed write: a model that thinks for a minute before
its first word writes nothing for a minute, and a client that left should not keep a
model busy (or a cloud model billing) that long. The turn is iterated in the request's
own task throughout: its wire's stream is never handed from one task to another.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Mapping
from contextlib import aclosing, suppress
from typing import TYPE_CHECKING, Any, TypeVar

from app.serve.served import Finished, Said, Words

if TYPE_CHECKING:
    from starlette.types import Receive, Scope, Send

T = TypeVar("T")


class ClientGone(Exception):
    """The client hung up before its answer was done (or was let go: see `let_go`)."""


# Requests whose turn was stopped on this side as a hang-up is: the person deleted the
# chat their turn was stored in. Weak: a finished request's task leaves by itself.
_let_go: weakref.WeakSet[asyncio.Task[Any]] = weakref.WeakSet()


def let_go(task: asyncio.Task[Any]) -> None:
    """Stop the turn of the request `task` serves as if its client had hung up: the turn
    stopped and stored as stopped, and the client told nothing more."""
    _let_go.add(task)
    task.cancel()


async def while_connected(receive: Receive, work: Awaitable[T]) -> T:
    """`work`'s result, awaited in this task; `ClientGone` once the client hangs up, `work`
    cancelled (its turn stopped) then. The body must have been read already: all that
    `receive` has left to say is the hang-up."""
    current = asyncio.current_task()
    assert current is not None
    gone = False

    async def watch() -> None:
        nonlocal gone
        while (await receive())["type"] != "http.disconnect":
            pass
        gone = True
        current.cancel()

    watcher = asyncio.create_task(watch())
    try:
        return await work
    except asyncio.CancelledError:
        gone = gone or current in _let_go
        if not gone:
            raise
        raise ClientGone from None
    finally:
        watcher.cancel()
        if gone:  # our own cancel, spent (or landing on the await below): the task goes on
            current.uncancel()
        with suppress(asyncio.CancelledError):
            await watcher


async def until_first(said: AsyncIterator[Said]) -> tuple[list[Said], bool]:
    """What a turn says up to its first words (or its end), and whether it ended there.

    A streaming answer's status line waits for this: a turn that fails before any word is
    answered with the real error status and body, as the real APIs do, not a 200 stream
    that carries an error.
    """
    held: list[Said] = []
    async for item in said:
        held.append(item)
        if isinstance(item, Words | Finished):
            return held, isinstance(item, Finished)
    return held, True


async def replayed(
    held: list[Said], rest: AsyncGenerator[Said, None]
) -> AsyncGenerator[Said, None]:
    """What `until_first` held, then the rest of the turn (closed with this)."""
    async with aclosing(rest):
        for item in held:
            yield item
        async for item in rest:
            yield item


class WatchedStream:
    """An ASGI response that streams `body` and stops it when the client hangs up."""

    def __init__(
        self, body: AsyncGenerator[bytes, None], media_type: str, headers: Mapping[str, str]
    ) -> None:
        """`body` is closed however the response ends, so the turn under it stops too."""
        self.body = body
        self.headers = [(b"content-type", media_type.encode("latin-1"))] + [
            (k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Send the status, then each piece as it comes, until the end or the hang-up."""
        with suppress(ClientGone, OSError):  # OSError: the socket failed as a piece went
            await while_connected(receive, self._send_all(send))

    async def _send_all(self, send: Send) -> None:
        async with aclosing(self.body) as pieces:
            await send({"type": "http.response.start", "status": 200, "headers": self.headers})
            async for piece in pieces:
                await send({"type": "http.response.body", "body": piece, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
