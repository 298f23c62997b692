"""The served routes, put together: OpenAI's under `/v1/`, Ollama's under `/api/`, behind the
guard. A handler that fails in a way nobody foresaw answers a shaped 500 and logs the
traceback: a client never reads one.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from app.serve import ollama_api, openai_api
from app.serve.cors import with_cors
from app.serve.errors import ClientError
from app.serve.guard import OPENAI_PREFIX, Guard
from app.serve.served import Served

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.types import ASGIApp

log = logging.getLogger(__name__)

Handler = Callable[["Request"], Awaitable["Response"]]

_UNFORESEEN = ClientError(
    500, "Sightline failed to answer this request; its log says why.", type="server_error"
)


def _safe(handler: Handler) -> Handler:
    """`handler`, with an unforeseen failure answered as the path's API shapes a 500."""

    async def safe(request: Request) -> Response:
        try:
            return await handler(request)
        except Exception:
            log.exception("serving %s failed", request.url.path)
            if request.url.path.startswith(OPENAI_PREFIX):
                return openai_api.error_response(_UNFORESEEN)
            return ollama_api.error_response(_UNFORESEEN)

    return safe


def build_app(
    served: Served, token: str, *, allow_tools: bool = False, cors_origins: Sequence[str] = ()
) -> ASGIApp:
    """The whole served app: the routes of both APIs over `served`, behind `token`, and
    readable by web pages from `cors_origins` (checked already) alone."""
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    async def root(request: Request) -> Response:
        return PlainTextResponse("Sightline is running")

    async def models(request: Request) -> Response:
        return await openai_api.models(served)

    async def completions(request: Request) -> Response:
        return await openai_api.chat_completions(request, served, allow_tools)

    async def tags(request: Request) -> Response:
        return await ollama_api.tags(served)

    async def chat(request: Request) -> Response:
        return await ollama_api.chat(request, served, allow_tools)

    async def show(request: Request) -> Response:
        return await ollama_api.show(request, served, allow_tools)

    async def version(request: Request) -> Response:
        return await ollama_api.version()

    routes = [
        Route("/", _safe(root), methods=["GET", "HEAD"]),
        Route("/v1/models", _safe(models), methods=["GET"]),
        Route("/v1/chat/completions", _safe(completions), methods=["POST"]),
        Route("/api/tags", _safe(tags), methods=["GET"]),
        Route("/api/chat", _safe(chat), methods=["POST"]),
        Route("/api/show", _safe(show), methods=["POST"]),
        Route("/api/version", _safe(version), methods=["GET"]),
    ]
    # CORS outside the guard: a browser's preflight carries no token, and is answered
    # before it; every other request goes through the guard all the same.
    guarded = Guard(Starlette(routes=routes), token)
    return with_cors(guarded, cors_origins, exposed=[openai_api.NOTICES_HEADER])
