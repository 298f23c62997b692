"""CORS, only where the person asks for it: `--cors-origin ORIGIN`, each origin named.

Without it no CORS header is sent, so a web page in a browser can't read an answer even
where it could send a request. A page the person names (a local web UI, say) may read
answers, and still needs the token on every real request: only a browser's preflight
(which never carries one) passes without it, and it says no more than what is allowed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

_DEFAULT_PORTS = {"http": 80, "https": 443}  # a browser's Origin leaves these out
PREFLIGHT_SECONDS = 600  # how long a browser may keep a preflight's answer


class OriginRefused(ValueError):
    """A `--cors-origin` that names no one page's origin; the message says what to give."""


def checked_origin(text: str) -> str:
    """`text` as a browser's `Origin` header says it (`scheme://host[:port]`, lower case,
    no default port); `OriginRefused` for anything else.

    A wildcard and `null` are refused: any page at all (`null` is every sandboxed page and
    local file) is not an origin the person named."""
    given = text.strip().rstrip("/")
    if given in ("*", "null"):
        raise OriginRefused(
            f"--cors-origin {given} would let any web page call the server: name each "
            "page's origin, such as http://localhost:5173."
        )
    parts = urlsplit(given)
    try:
        port = parts.port
    except ValueError:
        port = -1
    if (
        not parts.scheme
        or not parts.hostname
        or port == -1
        or parts.path
        or parts.query
        or parts.fragment
        or parts.username is not None
    ):
        raise OriginRefused(
            f"--cors-origin {text!r} is not an origin: give a scheme, a host and at most a "
            "port, such as http://localhost:5173 (no path)."
        )
    scheme, host = parts.scheme.lower(), parts.hostname.lower()
    host = f"[{host}]" if ":" in host else host
    if port is None or _DEFAULT_PORTS.get(scheme) == port:
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


def with_cors(app: ASGIApp, origins: Sequence[str], exposed: Sequence[str] = ()) -> ASGIApp:
    """`app`, answering browsers from `origins` (checked already) and only them; `app`
    itself when there are none. `exposed`: response headers such a page may read."""
    if not origins:
        return app
    from starlette.middleware.cors import CORSMiddleware

    named = CORSMiddleware(
        app,
        allow_origins=list(origins),
        allow_methods=["GET", "POST"],
        # The clients send headers of their own (the openai package's x-stainless-*):
        # any asked for is allowed, as no cookie is ever taken (credentials stay off).
        allow_headers=["*"],
        expose_headers=list(exposed),
        # A named page on the web calling this computer's loopback asks Chrome's
        # private-network question first; the person named it, so the answer is yes.
        allow_private_network=True,
        max_age=PREFLIGHT_SECONDS,
    )
    wanted = frozenset(o.encode("latin-1") for o in origins)

    async def cors(scope: Scope, receive: Receive, send: Send) -> None:
        # Any other origin (or none) meets the server as if CORS were off: no header at
        # all, and a preflight is the guard's, a 401 in its API's shape.
        origin = next((v for k, v in scope.get("headers", ()) if k == b"origin"), None)
        await (named if origin in wanted else app)(scope, receive, send)

    return cors
