"""The server run inside a program that already runs an asyncio loop (the window's): on
loopback only, its socket bound before uvicorn starts as `sightline serve` binds it, and
stopped at once when asked, each running request's turn stopped (and stored as stopped)
before `stop` returns.

`sightline serve` owns its process, its signals and its output (server.py); a host owns
none of them, so nothing here prints or touches a signal: the host shows what `Hosted`
says, and a port that is taken is a `ServeProblem` in plain words, never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import uvicorn  # imported by a host only once the person turns serving on

from app.serve.bearer import TokenProblem, load_or_make, token_path
from app.serve.binding import DEFAULT_HOST
from app.serve.routes import build_app
from app.serve.served import Served
from app.serve.server import ServeProblem

log = logging.getLogger(__name__)

HOST = DEFAULT_HOST  # loopback, always: a host offers no way to serve beyond this computer
STOP_SECONDS = 5.0  # a request whose turn doesn't unwind by then is cancelled outright


@dataclass(frozen=True)
class Address:
    """Where the hosted server answers, and the token its clients send."""

    port: int
    token: str
    token_file: Path

    @property
    def openai_url(self) -> str:
        """The base URL an OpenAI client is given."""
        return f"{self.ollama_url}/v1"

    @property
    def ollama_url(self) -> str:
        """The host an Ollama client is given."""
        return f"http://{HOST}:{self.port}"


def listen(port: int) -> socket.socket:
    """A listening loopback socket on `port`; `ServeProblem` in the person's words when the
    port is taken or not theirs to use."""
    try:
        sock = socket.create_server((HOST, port), backlog=128)
    except OSError as exc:
        raise ServeProblem(_port_words(port, exc)) from None
    sock.setblocking(False)
    return sock


def _port_words(port: int, exc: OSError) -> str:
    if exc.errno == errno.EADDRINUSE:
        return (
            f"Port {port} is in use by another program (another Sightline or "
            "`sightline serve`, perhaps): choose another port."
        )
    if exc.errno == errno.EACCES:
        return f"Port {port} is kept for the system on this computer: choose one from 1024 up."
    return f"Sightline can't listen on port {port} ({exc.strerror or exc}): choose another port."


class _Hushed(uvicorn.Server):
    """uvicorn's server without its signal handling: Ctrl+C and SIGTERM are the host's
    (uvicorn's own would take them and raise them again once it has stopped)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class Hosted:
    """One run of the server on the running loop, from `start` until `stop`."""

    def __init__(self, server: uvicorn.Server, sock: socket.socket, address: Address) -> None:
        """Serving on `sock` as `server`, which `start` has set going."""
        self._server = server
        self._sock = sock
        self.address = address
        self._task = asyncio.ensure_future(server.serve(sockets=[sock]))

    @classmethod
    def start(cls, served: Served, data_dir: Path, port: int, *, allow_tools: bool) -> Hosted:
        """Serve `served` on loopback `port` with the data folder's token (the one `sightline
        serve` uses); `ServeProblem` when the token can't be read or the port can't be had."""
        path = token_path(data_dir, None)
        try:
            token = load_or_make(path)
        except TokenProblem as exc:
            raise ServeProblem(str(exc)) from None
        sock = listen(port)
        config = uvicorn.Config(
            build_app(served, token, allow_tools=allow_tools),
            log_config=None,  # the host's log takes uvicorn's records
            access_log=False,
            lifespan="off",
        )
        return cls(_Hushed(config), sock, Address(sock.getsockname()[1], token, path))

    @property
    def running(self) -> bool:
        """Whether it still serves (uvicorn may have ended on its own)."""
        return not self._task.done()

    async def stop(self) -> None:
        """Stop listening, and stop every request still being answered: its connection is
        closed, which its turn sees as a client hanging up (stopped, stored as stopped)."""
        server = self._server
        server.should_exit = True
        server.force_exit = True  # no waiting on connections: they are closed just below
        for connection in list(server.server_state.connections):
            connection.transport.close()
        running = list(server.server_state.tasks)
        if running:
            _, late = await asyncio.wait(running, timeout=STOP_SECONDS)
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)
        try:
            await self._task
        except Exception:  # it is stopping: a failure now changes nothing but the log
            log.exception("the hosted server failed while stopping")
        finally:
            self._sock.close()
