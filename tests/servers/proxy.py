"""A loopback server that records every request and answers each one the same way.

As a "proxy" (HTTP_PROXY=http://127.0.0.1:PORT) it answers 502 and keeps the request
line, so a test can tell which requests went through a proxy and which went direct:
a forwarded request names its whole URL (`GET http://host/path`), a tunnel is a
`CONNECT host:port`. As a provider's address it is a server that always fails one
way: a 404, a web page, or no answer at all (`stall`) until it is stopped.
"""

from __future__ import annotations

import threading

from tests.servers.loopback import LoopbackHandler, LoopbackServer


class _Handler(LoopbackHandler):
    def _answer(self) -> None:
        owner: RecordingServer = self.server.owner
        with owner.lock:
            owner.requests.append(f"{self.command} {self.path}")
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        if owner.stall:
            owner.stopping.wait(30)  # a server that never answers, until the test ends
            return
        payload = owner.body.encode()
        self.send_response(owner.status)
        self.send_header("Content-Type", owner.content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(payload)
        self.close_connection = True

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_CONNECT = _answer


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
        port: int = 0,
    ) -> None:
        super().__init__(port)
        self.status = status
        self.body = body
        self.content_type = content_type
        self.stall = stall
        self.verbose = False
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.requests: list[str] = []

    @property
    def address(self) -> str:
        """host:port, as a proxy variable or a provider's address names it."""
        return f"127.0.0.1:{self.port}"

    def recorded(self) -> list[str]:
        """The request lines received so far."""
        with self.lock:
            return list(self.requests)

    def stop(self) -> None:
        """Wake any stalled answer, then stop serving."""
        self.stopping.set()
        super().stop()
