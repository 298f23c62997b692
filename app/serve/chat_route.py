"""What both APIs' chat routes do, in one place: read the body, read it as a turn, check the
model, run the turn while the client is there, and hand the answer to the API's own shape.

OpenAI's and Ollama's chat routes differ only in the shapes they answer with (their
errors, their stream, their whole answer), so those are what each passes in. A streamed
answer's status line waits for the turn's first words: a turn that fails before any is
answered with its real status and error body, as the real APIs do, not a 200 stream that
carries an error.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from app.serve.bodies import json_object
from app.serve.errors import ClientError
from app.serve.served import Asked, Finished, Said, Served, whole_answer
from app.serve.streaming import ClientGone, replayed, until_first, while_connected

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response


class Ask(Protocol):
    """A chat request as an API module reads it: the turn, and whether to stream it."""

    @property
    def asked(self) -> Asked:
        """The turn, in Sightline's terms."""
        ...

    @property
    def stream(self) -> bool:
        """Whether the answer is streamed."""
        ...


A = TypeVar("A", bound=Ask)


@dataclass(frozen=True)
class ChatShapes(Generic[A]):
    """What one API's chat route says its own way: `read` takes the body as its request
    (off the event loop: it decodes pictures), `refused` shapes an error, `streamed` a
    stream of what the turn says, `whole` a whole answer; `unknown_model` words a model
    nobody has, for an API with its own words for it (else Sightline's are sent)."""

    read: Callable[[dict[str, Any], str, bool], A]
    refused: Callable[[ClientError], Response]
    streamed: Callable[[A, AsyncGenerator[Said, None]], Response]
    whole: Callable[[A, str, Finished], Response]
    unknown_model: Callable[[str], ClientError] | None = None


async def answer_chat(
    request: Request, served: Served, allow_tools: bool, shapes: ChatShapes[A]
) -> Response:
    """One chat request answered in the shapes of its API."""
    from starlette.responses import Response

    read, refused = shapes.read, shapes.refused
    try:
        body = await json_object(request)
        client = request.headers.get("user-agent", "")
        ask = await asyncio.to_thread(read, body, client, allow_tools)
    except ClientError as error:
        return refused(error)
    try:
        await served.check_model(ask.asked.model)  # before anything is stored
    except ClientError as error:
        if shapes.unknown_model is not None and error.code == "model_not_found":
            error = shapes.unknown_model(ask.asked.model)
        return refused(error)
    said = served.run(ask.asked)
    try:
        if ask.stream:
            held, ended = await while_connected(request.receive, until_first(said))
            if ended and isinstance(held[-1], Finished) and held[-1].error is not None:
                await said.aclose()
                return refused(held[-1].error)
            return shapes.streamed(ask, replayed(held, said))
        text, finished = await while_connected(request.receive, whole_answer(said))
    except ClientGone:
        await said.aclose()
        return Response(status_code=499)  # nginx's word for it: nobody reads it
    if finished.error is not None:
        return refused(finished.error)
    return shapes.whole(ask, text, finished)
