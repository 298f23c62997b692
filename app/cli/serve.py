"""`sightline serve`: OpenAI's and Ollama's chat APIs on loopback, behind a token, each
request a turn under Sightline's rules (app/serve/, docs/serving.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.cli.common import CommandError, set_up

if TYPE_CHECKING:
    from app.config import Config


def add_parser(commands: Any) -> None:
    """The subcommand's flags (what it serves is imported only when it runs)."""
    serve = commands.add_parser(
        "serve",
        help="serve OpenAI's and Ollama's chat APIs to other apps on this computer",
        description="Serve OpenAI's Chat Completions and Ollama's chat API on loopback, "
        "behind a bearer token; each request is one turn under Sightline's rules.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="where to listen (loopback)")
    serve.add_argument(
        "--port", type=int, default=11435, metavar="N", help="the port (0: any free one)"
    )
    serve.add_argument(
        "--token-file",
        type=Path,
        metavar="FILE",
        help="where the bearer token is kept (made 0600 when missing); else the data folder",
    )
    serve.add_argument(
        "--allow-network",
        action="store_true",
        help="allow a host beyond loopback: other computers with the token may then use it",
    )
    serve.add_argument(
        "--allow-tools",
        action="store_true",
        help="pass a request's own tools through: the model's calls of them go back to the "
        "client, which runs them (Sightline runs none of its own here)",
    )
    serve.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="let web pages from ORIGIN (such as http://localhost:5173) read answers in a "
        "browser, still with the token; repeat for more (default: no page may)",
    )


async def serve(config: Config, args: argparse.Namespace) -> int:
    """Serve until Ctrl+C."""
    from app.serve.binding import BindRefused
    from app.serve.cors import OriginRefused, checked_origin
    from app.serve.server import ServeOptions, ServeProblem, run_server

    if not 0 <= args.port <= 65535:
        raise CommandError(f"--port {args.port} is not a port: give one from 0 to 65535.")
    try:
        origins = tuple(dict.fromkeys(checked_origin(o) for o in args.cors_origin))
    except OriginRefused as exc:
        raise CommandError(str(exc)) from None
    options = ServeOptions(
        args.host, args.port, args.token_file, args.allow_network, args.allow_tools, origins
    )
    assembly = set_up(config)
    try:
        await run_server(assembly, options, sys.stdout, sys.stderr)
    except (BindRefused, ServeProblem) as exc:
        raise CommandError(str(exc)) from None
    finally:
        assembly.store.close()
    return 0
