"""The server's life: checked host, token, bound socket, the lines that say where it is, then
uvicorn until Ctrl+C, which stops running turns (stored as stopped) and exits cleanly.

The socket is bound here, before uvicorn starts, so `--port 0` can print the port the
system chose and a client that connects at once waits in the backlog instead of failing.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import uvicorn  # this module is imported by `serve` alone, never before a window's paint

from app.serve.bearer import load_or_make, token_path
from app.serve.binding import DEFAULT_HOST, checked_host, url_host

if TYPE_CHECKING:
    from app.assembly import Assembly

DEFAULT_PORT = 11435  # beside Ollama's 11434, which a person may be running too
GRACE_SECONDS = 5  # running turns get this long after Ctrl+C, then they are stopped


class ServeProblem(Exception):
    """The server can't start; the message says why and what to do."""


@dataclass(frozen=True)
class ServeOptions:
    """What `sightline serve` was told."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    token_file: Path | None = None
    allow_network: bool = False
    allow_tools: bool = False
    cors_origins: tuple[str, ...] = ()  # web pages that may read answers (checked already)


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on `host:port` (port 0: the system picks one)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host.strip("[]"), port, type=socket.SOCK_STREAM
        )[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise ServeProblem(f"can't serve on {host}: {exc}.") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise ServeProblem(
            f"can't listen on {host}:{port} ({exc.strerror or exc}): choose another --port."
        ) from None
    sock.setblocking(False)
    return sock


async def run_server(assembly: Assembly, options: ServeOptions, out: TextIO, err: TextIO) -> None:
    """Serve until Ctrl+C (or SIGTERM); `ServeProblem` when it can't start."""
    from app.serve.bearer import TokenProblem
    from app.serve.routes import build_app
    from app.serve.served import Served
    from app.turn.tool_step import DenyAll

    warning = checked_host(options.host, options.allow_network)  # BindRefused when refused
    path = token_path(assembly.config.data_dir, options.token_file)
    try:
        token = load_or_make(path)
    except TokenProblem as exc:
        raise ServeProblem(str(exc)) from None
    sock = bind(options.host, options.port)
    catalogue = assembly.catalogue()
    runner = assembly.runner(catalogue, assembly.tool_step(DenyAll()))
    app = build_app(
        Served(assembly.store, catalogue, runner),
        token,
        allow_tools=options.allow_tools,
        cors_origins=options.cors_origins,
    )
    config = uvicorn.Config(
        app,
        log_config=None,  # Sightline's log takes uvicorn's records
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=GRACE_SECONDS,
    )
    server = _QuietServer(config)
    try:
        # Ctrl+C is the server's from before the lines that say it is serving: a client (or
        # a person) that reads them may stop it at once.
        with _stopped_by_signals(server):
            if warning is not None:
                print(warning, file=err, flush=True)
            base = f"http://{url_host(options.host)}:{sock.getsockname()[1]}"
            print(f"OpenAI API: {base}/v1", file=out)
            print(f"Ollama API: {base}", file=out)
            print(
                f"Token: in {path} (send it as Authorization: Bearer TOKEN)", file=out, flush=True
            )
            await server.serve(sockets=[sock])
    finally:
        sock.close()
        await catalogue.aclose()
    print("Stopped serving.", file=err, flush=True)


class _QuietServer(uvicorn.Server):
    """uvicorn's server, leaving Ctrl+C to `_stopped_by_signals`: uvicorn's own handling
    raises the signal again once it has stopped, which would end the command with a
    KeyboardInterrupt instead of closing the catalogue and the store and exiting 0."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@contextlib.contextmanager
def _stopped_by_signals(server: uvicorn.Server) -> Iterator[None]:
    """Ctrl+C and SIGTERM ask `server` to stop (a second Ctrl+C: at once), until the end."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    wanted = (signal.SIGINT, signal.SIGTERM)
    originals = {sig: signal.signal(sig, server.handle_exit) for sig in wanted}
    try:
        yield
    finally:
        for sig, handler in originals.items():
            signal.signal(sig, handler)
