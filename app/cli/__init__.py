"""The `sightline` command: the window, `ask`, `models`, `check-sight`, `chats`, `export`,
`import`, `mcp-serve`, `serve`, `--version`, `--smoke`; the parser (`parser.py`) and one module
per command beside this.

Heavy modules (Qt, httpx, Pillow, even asyncio) are imported inside the command
that needs them, so `sightline --version` and the window's first paint stay quick.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence

from app.cli.common import CommandError, load_settings
from app.cli.start_collection import StartCollection
from vision.labels import shown_name


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit status."""
    start = StartCollection()  # until the command's start is over (its module says why)
    try:
        return _command(start, sys.argv[1:] if argv is None else list(argv))
    finally:
        start.resume()


def _command(start: StartCollection, arguments: list[str]) -> int:
    if arguments in ([], ["--smoke"]):
        # The window, as most starts are: building the parser of every command
        # (about 10 ms) would only delay the first paint.
        from app.ui.app import run_window

        return run_window(smoke=bool(arguments), collection_was_enabled=start.hand_over())
    from app.cli.parser import build_parser

    args = build_parser().parse_args(arguments)
    if args.command is None:
        from app.ui.app import run_window

        return run_window(smoke=args.smoke, collection_was_enabled=start.hand_over())
    import asyncio  # ~25 ms: the window loads it only after its first paint

    try:
        config = load_settings()
        if args.command != "ask":  # its start ends with the answer's first word (ask.py)
            start.resume()
        if args.command in ("chats", "export", "import"):
            from app.cli import chats

            return chats.run(config, args)
        if args.command in ("models", "check-sight"):
            from app.cli import models

            if args.command == "models":
                return asyncio.run(models.list_models(config, as_json=args.json))
            mark = True if args.mark_blind else False if args.unmark else None
            return asyncio.run(models.check_sight(config, args.model, as_json=args.json, mark=mark))
        if args.command == "mcp-serve":
            from app.cli import mcp_serve

            return asyncio.run(mcp_serve.serve(config, args))
        if args.command == "serve":
            from app.cli import serve

            return asyncio.run(serve.serve(config, args))
        from app.cli.ask import ask

        return asyncio.run(ask(config, args, start))
    except CommandError as exc:
        print(f"sightline: {shown_name(str(exc))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        if getattr(args, "json", False):  # the stream ends with an event, as every ending does
            error = {"type": "error", "kind": "stopped", "message": "stopped by the person"}
            print(json.dumps(error), flush=True)
        print("sightline: stopped", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # `sightline ask ... | head`: the reader left; that is not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
