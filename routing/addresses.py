"""Addresses of local servers, read the way their own clients read them.

Kept apart from the wires so the config can use it without importing httpx.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

from routing.endpoints import endpoint_name

OLLAMA_DEFAULT_PORT = 11434
OLLAMA_DEFAULT_URL = f"http://127.0.0.1:{OLLAMA_DEFAULT_PORT}"


def ollama_base_url(configured: str | None, environ: Mapping[str, str]) -> str:
    """The address to reach Ollama at: the configured one, else OLLAMA_HOST, else the default."""
    raw = (configured or "").strip() or environ.get("OLLAMA_HOST", "").strip()
    # Same rules as the `ollama` Python client's _parse_host.
    scheme, sep, hostport = raw.partition("://")
    port = OLLAMA_DEFAULT_PORT
    if not sep:
        scheme, hostport = "http", raw
    scheme = scheme.lower()
    if sep and scheme == "http":
        port = 80
    elif sep and scheme == "https":
        port = 443
    split = urlsplit(f"{scheme}://{hostport}")
    host = split.hostname or "127.0.0.1"
    try:
        port = split.port or port
    except ValueError:
        # Named by host only: never the user name or password the address may carry.
        problem = f"{endpoint_name(raw)!r} has a port that is not a number"
        raise ValueError(f"{problem} (try 127.0.0.1:11434)") from None
    # A server bound to every interface is reached, from a client, through loopback.
    if host == "0.0.0.0":
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    if ":" in host:
        host = f"[{host}]"
    path = split.path.strip("/")
    return f"{scheme}://{host}:{port}" + (f"/{path}" if path else "")
