"""A loopback server that records every request and answers each one the same way.

As a "proxy" (HTTP_PROXY=http://127.0.0.1:PORT) it answers 502 and keeps the request
line, so a test can tell which requests went through a proxy and which went direct:
a forwarded request names its whole URL (`GET http://host/path`), a tunnel is a
`CONNECT host:port`. As a provider's address it is a server that always fails one
way: a 404, a web page, or no answer at all (`stall`) until it is stopped. With
`tls` it speaks HTTPS with a certificate nothing trusts.
"""

from __future__ import annotations

import threading

from tests.servers.loopback import LoopbackHandler, LoopbackServer


class _Handler(LoopbackHandler):
    def route(self) -> None:
        owner: RecordingServer = self.owner
        if owner.stall:
            owner.stopping.wait(30)  # a server that never answers, until the test ends
            return
        self.close_connection = True
        self.send(owner.status, owner.body.encode(), owner.content_type, {"Connection": "close"})

    do_PUT = do_DELETE = do_HEAD = do_CONNECT = LoopbackHandler.serve


class RecordingServer(LoopbackServer):
    """Records `METHOD target` of every request; answers `status` with `body`."""

    handler_class = _Handler
    name = "recording"

    def __init__(
        self,
        status: int = 502,
        body: str = "recording proxy: nothing is forwarded",
        *,
        content_type: str = "text/plain; charset=utf-8",
        stall: bool = False,
        tls: bool = False,
        port: int = 0,
    ) -> None:
        super().__init__(port, tls=tls)
        self.status = status
        self.body = body
        self.content_type = content_type
        self.stall = stall
        self.stopping = threading.Event()

    @property
    def address(self) -> str:
        """host:port, as a proxy variable or a provider's address names it."""
        return f"127.0.0.1:{self.port}"

    @property
    def requests(self) -> list[str]:
        """The request lines received so far."""
        return self.paths()

    def recorded(self) -> list[str]:
        """The request lines received so far."""
        return self.paths()

    def stop(self) -> None:
        """Wake any stalled answer, then stop serving."""
        self.stopping.set()
        super().stop()
