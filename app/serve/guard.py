"""Nobody else gets in: every request carries the bearer token, or gets a 401 that says no
more than that.

Pure ASGI middleware (not Starlette's `BaseHTTPMiddleware`), so a request's handler runs in
the request's own task and a hang-up reaches the turn it started. The 401 is shaped for the
API the path belongs to, so each client reports it as its own authentication error. The
guard sends no CORS headers: only origins the person names get them (app/serve/cors.py).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from app.serve.bearer import matches

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

OPENAI_PREFIX = "/v1/"
_OPENAI_401 = {
    "error": {
        "message": "Unauthorized.",
        "type": "invalid_request_error",
        "param": None,
        "code": "invalid_api_key",
    }
}
_OLLAMA_401 = {"error": "unauthorized"}


class Guard:
    """Lets through only requests whose `Authorization` is `Bearer <token>`."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        """`app` answers the requests that carry `token`."""
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check the token, then hand the request on; anything but HTTP is refused."""
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # a websocket: nothing here speaks it
            return
        authorization = None
        for name, value in scope.get("headers", ()):
            if name == b"authorization":
                authorization = value.decode("latin-1")
                break
        if matches(self.token, authorization):
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", ""))
        body = _OPENAI_401 if path.startswith(OPENAI_PREFIX) else _OLLAMA_401
        payload = json.dumps(body).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(payload)).encode()),
            (b"www-authenticate", b"Bearer"),
        ]
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": payload})
