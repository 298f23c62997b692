"""The one scripted loopback server every fake provider is built on.

A threaded HTTP server on 127.0.0.1 (or, with `tls`, HTTPS with the self-signed
certificate `loopback.pem`) that starts, stops (cutting open connections, as a killed
server would) and works in a `with` block. Its handler records every request
(method, path, headers, parsed body), then answers with a hostile body when one is
set for the path, else through the routes a provider's handler adds. It answers
with JSON, a chunked stream (delayed, or dropped mid-body, as a reply says), or one
of the hostile modes of `tests.servers.hostile`; replies queued with `enqueue` are
taken in order; `main()` serves one from the command line. A provider's module only
adds its routes and the encoder of its API shape.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import socket
import ssl
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import MappingProxyType
from typing import Any, NoReturn, Self

from tests.servers import hostile

# A self-signed certificate (and its key) for 127.0.0.1, trusted by nothing: a client
# that checks TLS refuses it; one told to trust this file accepts it.
CERTIFICATE = Path(__file__).with_name("loopback.pem")
NO_HEADERS: Mapping[str, str] = MappingProxyType({})


def dumps(obj: Any) -> str:
    """Compact JSON, as the real servers write it."""
    return json.dumps(obj, separators=(",", ":"))


class Headers(Mapping[str, str]):
    """A request's headers, looked up in any case (HTTP names are case-insensitive)."""

    def __init__(self, items: Iterable[tuple[str, str]]) -> None:
        self._items = {name.lower(): value for name, value in items}

    def __getitem__(self, name: str) -> str:
        return self._items[name.lower()]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Headers({self._items!r})"


@dataclass(frozen=True)
class Recorded:
    """One request as the server received it."""

    method: str
    path: str  # as requested, query included
    headers: Headers
    body: Any  # the JSON it carried, parsed; None without a body or when it isn't JSON
    # When it was read whole (time.perf_counter: the clock of the process that serves it).
    received_at: float = field(default_factory=time.perf_counter, compare=False)


@dataclass
class ScriptedReply:
    """What every provider's Reply can say: the answer's words, pace, failures, misbehaviour."""

    text: str = ""
    chunk_chars: int = 4
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    delay: float = 0.0  # seconds before each piece of a stream
    status: int = 200
    body: Any = None  # the JSON error body sent with a non-200 `status`
    headers: dict[str, str] = field(default_factory=dict)
    raw_body: str | None = None  # sent verbatim with `content_type` and `status` (a proxy's page)
    content_type: str = "text/html; charset=utf-8"
    drop_after: int | None = None  # cut the connection after this many pieces
    hostile: str | None = None  # a mode of tests.servers.hostile, sent with `status`


def pieces(text: str, size: int) -> list[str]:
    """`text` in pieces of `size` characters (at least one)."""
    size = max(size, 1)
    return [text[i : i + size] for i in range(0, len(text), size)]


def closed_port() -> int:
    """A loopback port nothing listens on (it was free a moment ago)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Dropped(Exception):
    """The handler cut the connection on purpose (or the client went away)."""


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


class LoopbackHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 with keep-alive: records each request, then answers it through `route`."""

    protocol_version = "HTTP/1.1"
    json_type = "application/json; charset=utf-8"
    server: LoopbackHTTPServer
    # Set for each request before `route` runs.
    route_path: str  # the path without its query
    query: str
    raw: bytes  # the body as sent
    body: Any  # ... parsed as JSON, or None
    body_problem: str | None  # why it isn't JSON (None when it is, or there is none)

    @property
    def owner(self) -> Any:
        """The LoopbackServer this handler serves for."""
        return self.server.owner

    def serve(self) -> None:
        """Read, record, and answer one request."""
        self.route_path, _, self.query = self.path.partition("?")
        length = int(self.headers.get("Content-Length") or 0)
        self.raw = self.rfile.read(length) if length else b""
        self.body, self.body_problem = None, None
        if self.raw:
            try:
                self.body = json.loads(self.raw)
            except ValueError as exc:
                self.body_problem = str(exc)
        self.owner.record(
            Recorded(self.command, self.path, Headers(self.headers.items()), self.body)
        )
        try:
            if (mode := self.owner.hostile.get(self.route_path)) is not None:
                self.misbehave(mode, hostile.JSON_BODY)
            else:
                self.route()
        except (Dropped, OSError):  # cut on purpose, or the client went away
            self.close_connection = True

    do_GET = do_POST = serve

    def route(self) -> None:
        """Answer the request just recorded (each provider's handler says how)."""
        self.send(404, b"", "text/plain")

    def extra_headers(self) -> dict[str, str]:
        """Headers every answer carries (none here; Anthropic sends a request id)."""
        return {}

    def internal_error(self) -> Any:
        """The error body of a failing reply that brings none of its own."""
        return {"error": "internal error"}

    # -- answers ----------------------------------------------------------------

    def _head(self, status: int, content_type: str, headers: Mapping[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for name, value in {**self.extra_headers(), **headers}.items():
            self.send_header(name, value)

    def send(
        self,
        status: int,
        payload: bytes,
        content_type: str,
        headers: Mapping[str, str] = NO_HEADERS,
    ) -> None:
        """Answer with a whole body."""
        self._head(status, content_type, headers)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def json(self, status: int, obj: Any, headers: Mapping[str, str] = NO_HEADERS) -> None:
        """Answer with a JSON body."""
        self.send(status, dumps(obj).encode(), self.json_type, headers)

    def text(self, status: int, text: str) -> None:
        """Answer with plain text."""
        self.send(status, text.encode(), "text/plain; charset=utf-8")

    def _start_chunked(self, status: int, content_type: str, headers: Mapping[str, str]) -> None:
        self._head(status, content_type, headers)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()

    def _chunk(self, piece: bytes) -> None:
        self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
        self.wfile.flush()

    def stream(
        self,
        content_type: str,
        body: Iterable[bytes],
        reply: ScriptedReply,
        headers: Mapping[str, str] = NO_HEADERS,
    ) -> None:
        """A 200 sent in chunks, one a piece: each after the reply's delay, cut at its drop."""
        self._start_chunked(200, content_type, headers)
        for sent, piece in enumerate(body):
            if reply.drop_after is not None and sent >= reply.drop_after:
                self.drop()
            time.sleep(reply.delay)
            self._chunk(piece)
        self.wfile.write(b"0\r\n\r\n")

    def drop(self) -> NoReturn:
        """Cut the connection both ways mid-body: the client sees an incomplete read."""
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)
        raise Dropped

    def misbehave(self, mode: str, shape: hostile.Shape, status: int = 200) -> None:
        """Answer in a hostile `mode` until the client hangs up (what such a server waits for)."""
        self.close_connection = True
        bomb = {"Content-Encoding": "gzip"} if mode == hostile.GZIP_BOMB else {}
        self._start_chunked(status, shape.content_type, bomb)
        for piece in filter(None, hostile.body(mode, shape)):  # an empty chunk would end it
            self._chunk(piece)
        self.wfile.write(b"0\r\n\r\n")

    def answered_otherwise(self, reply: ScriptedReply, shape: hostile.Shape) -> bool:
        """Answer as the reply's hostile mode, raw body or error status says, if it says one;
        False when it is a real answer, for the provider's encoder to send."""
        if reply.hostile is not None:
            error = reply.status != 200
            self.misbehave(reply.hostile, hostile.JSON_BODY if error else shape, reply.status)
            return True
        if reply.raw_body is not None:
            self.send(reply.status, reply.raw_body.encode(), reply.content_type, reply.headers)
            return True
        if reply.status != 200:
            error = reply.body if reply.body is not None else self.internal_error()
            self.json(reply.status, error, reply.headers)
            return True
        return False

    # -- quiet ------------------------------------------------------------------

    def log_message(self, format: str, *args: Any) -> None:
        if self.owner.verbose:
            super().log_message(format, *args)

    def finish(self) -> None:
        with contextlib.suppress(OSError):  # a dropped connection has nothing to flush
            super().finish()


class LoopbackServer:
    """A scripted server on 127.0.0.1, served from a daemon thread; start, stop, `with`."""

    handler_class: type[BaseHTTPRequestHandler] = LoopbackHandler
    name = "loopback"
    description = "A loopback HTTP server on 127.0.0.1."
    chat_path = ""  # where chat requests go (`chat_requests`)

    def __init__(self, port: int = 0, *, tls: bool = False) -> None:
        self.port = port
        self.tls = tls
        self.base_url = ""
        self.verbose = False
        # path (without the query) -> a mode of tests.servers.hostile its requests get
        self.hostile: dict[str, str] = {}
        self.lock = threading.Lock()
        self._received: list[Recorded] = []
        self._replies: deque[Any] = deque()
        self._server: LoopbackHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- serving ----------------------------------------------------------------

    def start(self) -> str:
        """Start serving; returns the base URL "http://127.0.0.1:PORT" (https with `tls`)."""
        if self._server is None:
            self._server = LoopbackHTTPServer(("127.0.0.1", self.port), self.handler_class, self)
            if self.tls:
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                context.load_cert_chain(CERTIFICATE)
                # The handshake happens in the request's thread, so a client that never
                # finishes one doesn't hold up the others.
                self._server.socket = context.wrap_socket(
                    self._server.socket, server_side=True, do_handshake_on_connect=False
                )
            self.port = self._server.server_address[1]
            self.base_url = f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"
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

    # -- what it was asked ------------------------------------------------------

    def record(self, request: Recorded) -> None:
        """Keep one request (the handler calls this before answering it)."""
        with self.lock:
            self._received.append(request)

    def received(self, wanted: Callable[[Recorded], bool] = lambda _: True) -> list[Recorded]:
        """The requests received so far (those `wanted`), in order."""
        with self.lock:
            return [r for r in self._received if wanted(r)]

    def paths(self) -> list[str]:
        """`METHOD path` of every request, in order."""
        return [f"{r.method} {r.path}" for r in self.received()]

    def is_chat(self, request: Recorded) -> bool:
        """Whether a request asked for a chat (a JSON object sent to `chat_path`)."""
        return request.path == self.chat_path and isinstance(request.body, dict)

    def chat_requests(self) -> list[dict[str, Any]]:
        """The parsed bodies of every chat request, in order."""
        return [r.body for r in self.received(self.is_chat)]

    # -- what it answers --------------------------------------------------------

    def enqueue(self, *replies: Any) -> None:
        """Make the next chat requests answer with these replies, in order."""
        with self.lock:
            self._replies.extend(replies)

    def next_reply(self) -> Any:
        """Take the next queued reply, if any (None: the server's default answer)."""
        with self.lock:
            return self._replies.popleft() if self._replies else None

    # -- from the command line --------------------------------------------------

    @property
    def address(self) -> str:
        """What `main` prints for people to point Sightline at."""
        return self.base_url

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        """The server's own command-line options (none here)."""

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> Self:
        """The server the command line asks for."""
        return cls(port=args.port)

    @classmethod
    def main(cls, argv: list[str] | None = None) -> int:
        """Serve until Ctrl+C, printing the address first (`python -m tests.servers.X`)."""
        parser = argparse.ArgumentParser(description=cls.description)
        parser.add_argument("--port", type=int, default=0, help="port (0: any free port)")
        cls.add_arguments(parser)
        parser.add_argument("--verbose", action="store_true", help="log each request")
        args = parser.parse_args(argv)
        server = cls.from_arguments(args)
        server.verbose = args.verbose
        server.start()
        print(server.address, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
        finally:
            server.stop()
        return 0
