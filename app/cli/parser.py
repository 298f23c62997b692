"""The command line's parser: every command's flags, as `sightline --help` shows them.

Built only for a command: the window, as most starts are, needs none of it, and building
it would only delay the first paint.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any


class _VersionAction(argparse.Action):
    """`--version`: the installed distribution's version, looked up only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        from app.version import installed_version

        print(f"sightline {installed_version()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The command line, as `--help` shows it."""
    parser = argparse.ArgumentParser(
        prog="sightline",
        description="A local-first chat client where every model can use pictures.",
    )
    parser.add_argument("--version", action=_VersionAction, help="print the version and exit")
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="open the window, wait for the first paint, print timings as JSON, exit",
    )
    commands = parser.add_subparsers(dest="command")
    ask = commands.add_parser("ask", help="run one turn without a window and print the answer")
    ask.add_argument("prompt", nargs="?", default="", help="what to say to the model")
    ask.add_argument("--model", help="PROVIDER:MODEL, or auto (the default)")
    ask.add_argument(
        "--attach",
        action="append",
        default=[],
        type=Path,
        metavar="FILE",
        help="attach a picture or a PDF (repeat for more)",
    )
    ask.add_argument("--conversation", metavar="ID", help="continue this conversation")
    ask.add_argument(
        "--mcp-config",
        type=Path,
        metavar="FILE",
        help="the mcpServers JSON (as Claude Desktop uses) whose tools to offer",
    )
    ask.add_argument(
        "--allow-tools",
        action="store_true",
        help="offer the model its tools and allow every call for this run",
    )
    ask.add_argument("--system", metavar="TEXT", help="the system prompt (kept with a new chat)")
    ask.add_argument("--temperature", metavar="X", help="from 0 to 2 (kept with a new chat)")
    ask.add_argument(
        "--max-tokens", metavar="N", help="the longest answer, in tokens (kept with a new chat)"
    )
    ask.add_argument(
        "--regenerate",
        action="store_true",
        help="with --conversation: answer its last message again, as a new version",
    )
    ask.add_argument("--json", action="store_true", help="print one JSON object per event")
    models = commands.add_parser("models", help="list the models of every ready provider")
    models.add_argument("--json", action="store_true", help="print a JSON array")
    check = commands.add_parser(
        "check-sight", help="ask a model about a probe picture: does it really see?"
    )
    check.add_argument("model", help="PROVIDER:MODEL")
    check.add_argument("--json", action="store_true", help="print the verdict as JSON")
    marking = check.add_mutually_exclusive_group()
    marking.add_argument(
        "--mark-blind",
        action="store_true",
        help="don't check: treat the model as blind whatever its listing says (kept)",
    )
    marking.add_argument(
        "--unmark", action="store_true", help="don't check: take back --mark-blind"
    )
    chats = commands.add_parser("chats", help="list the conversations, most recent first")
    chats.add_argument("--json", action="store_true", help="print a JSON array")
    export = commands.add_parser("export", help="write a conversation as Markdown or JSON")
    export.add_argument("conversation", metavar="ID", help="the conversation (`sightline chats`)")
    export.add_argument("--format", choices=("md", "json"), default="md", help="md (the default)")
    export.add_argument(
        "-o", "--output", type=Path, metavar="FILE", help="write to FILE instead of printing"
    )
    imported = commands.add_parser("import", help="add a conversation from a JSON export")
    imported.add_argument("file", type=Path, metavar="FILE", help="a `sightline export` JSON file")
    from app.cli import mcp_serve, serve  # flags only: what they serve loads when they run

    mcp_serve.add_parser(commands)
    serve.add_parser(commands)
    return parser
