"""The HTTP client a wire talks through, set up for where its server is.

A server on this computer is reached directly: a proxy from the environment
would swallow requests meant for loopback. One reached over plain HTTP on this
computer gets no TLS context: building one loads the CA bundle (about 30 ms of
every start), and no TLS is spoken on that connection. Wires don't follow
redirects, so a plain-HTTP client never ends up on an HTTPS address.
"""

from __future__ import annotations

import httpx


def http_client(base_url: str, *, local: bool) -> httpx.AsyncClient:
    """A client for one wire's server (`local`: on this computer)."""
    plain_http = base_url.strip().lower().startswith("http://")
    return httpx.AsyncClient(
        trust_env=not local,
        verify=not (local and plain_http),
        follow_redirects=False,
    )
