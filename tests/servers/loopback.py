"""What every loopback provider server shares: a threaded HTTP server on 127.0.0.1 that
can be started, stopped (cutting open connections, as a killed server would) and used
in a `with` block, and paths that can be made to answer with hostile bodies."""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from tests.servers import hostile


class LoopbackHTTPServer(ThreadingHTTPServer):
    """A threaded HTTP server that knows its open connections and its owner."""

    daemon_threads = True

    def __init__(
        self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], owner: Any
    ) -> None:
        self.owner = owner
        self.open_sockets: set[socket.socket] = set()
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        self.open_sockets.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        self.open_sockets.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hangs up (a timeout test, a dropped stream) is not the server's fault.
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


class LoopbackServer:
    """Start, stop and `with` for a fake provider served from a daemon thread."""

    handler_class: type[BaseHTTPRequestHandler]
    name = "loopback"

    def __init__(self, port: int = 0) -> None:
        self.port = port
        self.base_url = ""
        # path (without the query) -> a mode of tests.servers.hostile its GET or POST gets
        self.hostile: dict[str, str] = {}
        self._server: LoopbackHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> str:
        """Start serving; returns the base URL "http://127.0.0.1:PORT"."""
        if self._server is None:
            self._server = LoopbackHTTPServer(("127.0.0.1", self.port), self.handler_class, self)
            self.port = self._server.server_address[1]
            self.base_url = f"http://127.0.0.1:{self.port}"
            self._thread = threading.Thread(
                target=self._server.serve_forever,
                kwargs={"poll_interval": 0.05},
                name=f"{self.name}-{self.port}",
                daemon=True,
            )
            self._thread.start()
        return self.base_url

    def stop(self) -> None:
        """Stop serving and cut every open connection, as a killed server would."""
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        for sock in list(server.open_sockets):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class Dropped(Exception):
    """The handler cut the connection on purpose (or the client went away)."""


class LoopbackHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 with keep-alive, quiet unless the owner is verbose, calm about hang-ups."""

    protocol_version = "HTTP/1.1"
    server: LoopbackHTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.owner.verbose:
            super().log_message(format, *args)

    def served_hostile(self) -> bool:
        """Answer with the hostile body the owner set for this path, if it set one."""
        mode = self.server.owner.hostile.get(self.path.split("?")[0])
        if mode is None:
            return False
        hostile.serve(self, mode, hostile.JSON_BODY)
        return True

    def finish(self) -> None:
        with contextlib.suppress(OSError):  # a dropped connection has nothing to flush
            super().finish()
