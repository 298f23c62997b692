"""The `sightline` command: the window, `ask`, `models`, `check-sight`, `--version`, `--smoke`.

Heavy modules (Qt, httpx, Pillow, even asyncio) are imported inside the command
that needs them, so `sightline --version` and the window's first paint stay quick.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from contextlib import aclosing
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from vision.labels import shown_name

if TYPE_CHECKING:
    from app.config import Config
    from app.store import Store
    from app.turn.events import TurnEvent
    from routing.transcript import Notice


class CommandError(Exception):
    """A failure to report as one line, with a non-zero exit status."""


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
    ask.add_argument("prompt", help="what to say to the model")
    ask.add_argument("--model", default="auto", help="PROVIDER:MODEL, or auto (the default)")
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
    ask.add_argument("--json", action="store_true", help="print one JSON object per event")
    models = commands.add_parser("models", help="list the models of every ready provider")
    models.add_argument("--json", action="store_true", help="print a JSON array")
    check = commands.add_parser(
        "check-sight", help="ask a model about a probe picture: does it really see?"
    )
    check.add_argument("model", help="PROVIDER:MODEL")
    check.add_argument("--json", action="store_true", help="print the verdict as JSON")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit status."""
    args = build_parser().parse_args(argv)
    if args.command is None:
        from app.ui.app import run_window

        return run_window(smoke=args.smoke)
    import asyncio  # ~25 ms: the window loads it only after its first paint

    try:
        config = _load_config()
        if args.command == "models":
            return asyncio.run(_models(config, as_json=args.json))
        if args.command == "check-sight":
            return asyncio.run(_check_sight(config, args.model, as_json=args.json))
        return asyncio.run(_ask(config, args))
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


def _load_config() -> Config:
    from app.config import ConfigError, load_config
    from app.logs import setup_logging

    try:
        config = load_config()
    except ConfigError as exc:
        raise CommandError(str(exc)) from None
    setup_logging(config.data_dir)
    return config


def _open_store(config: Config) -> Store:
    from app.store import Store, StoreError

    try:
        return Store.open(config.data_dir)
    except StoreError as exc:
        raise CommandError(str(exc)) from None


def _catalogue(config: Config, store: Store | None = None) -> Any:
    from app.config import effective_providers
    from app.keys import KeyStore, with_keys
    from routing.catalogue import Catalogue

    providers = with_keys(
        effective_providers(config, os.environ), KeyStore(config.data_dir), os.environ
    )
    if store is None:
        return Catalogue(providers)
    # What was learned (a refusal, a sight check) is part of each model's answer.
    return Catalogue(providers, blind=store.learned.blind(), checked=store.learned.checks())


async def _models(config: Config, *, as_json: bool) -> int:
    store = _open_store(config)
    try:
        catalogue = _catalogue(config, store)
    finally:
        store.close()
    try:
        statuses = await catalogue.refresh()
    finally:
        await catalogue.aclose()
    rows = [
        {
            "provider": m.provider_id,
            "model": m.name,
            "local": m.local,
            "sees": m.sees,
            "sight_from": str(m.sight_from),
            "tools": m.tools,
            "context_length": m.context_length,
        }
        for m in catalogue.models()
    ]
    problems = [
        s for s in statuses.values() if s.error and not (s.provider.discovered and not s.models)
    ]
    for status in problems:
        print(f"sightline: {status.provider.id}: {status.error}", file=sys.stderr)
    if as_json:
        print(json.dumps(rows, indent=2))
    elif rows:
        for row in rows:
            print(f"{row['provider']}:{row['model']}\t{_where(row)}\t{_abilities(row)}")
    if not rows:
        raise CommandError(_nothing_ready(config))
    return 0


async def _check_sight(config: Config, ref: str, *, as_json: bool) -> int:
    """`sightline check-sight PROVIDER:MODEL`: the verdict, printed and kept."""
    from routing.errors import ProviderError
    from routing.sight_check import check_sight

    store = _open_store(config)
    catalogue = _catalogue(config, store)
    try:
        await _check_model(ref, catalogue, auto_allowed=False)
        try:
            model = await catalogue.resolve(ref.strip())
        except ProviderError as exc:
            raise CommandError(exc.message) from None
        result = await check_sight(catalogue, model)
        endpoint, name = catalogue.learn_sight(model, result.verdict)
        store.learned.remember_check(endpoint, name, result.verdict, result.answer)
    finally:
        await catalogue.aclose()
        store.close()
    if as_json:
        line = {"model": model.ref, "sight": str(result.verdict), "answer": result.answer}
        print(json.dumps(line))
    else:
        words = {
            "sees": "sees pictures",
            "blind": "doesn't see pictures",
            "unsure": "gave no clear answer: treated as a model that can't see",
        }[result.verdict]
        print(f"{model.ref} {words}. It answered: {shown_name(result.answer) or '(nothing)'}")
    return 0


def _where(row: dict[str, Any]) -> str:
    return "local" if row["local"] else "cloud"


def _abilities(row: dict[str, Any]) -> str:
    sees = {True: "sees", False: "blind", None: "sight unknown"}[row["sees"]]
    tools = {True: "tools", False: "no tools", None: "tools unknown"}[row["tools"]]
    return f"{sees}, {tools}"


def _nothing_ready(config: Config) -> str:
    from app.config import ollama_address

    where = config.source or "no config file"
    return (
        f"no provider is ready. Is Ollama running at {ollama_address(os.environ)}? Start it with "
        f"`ollama serve`, or set OLLAMA_HOST, or add a provider to the config ({where})."
    )


async def _ask(config: Config, args: argparse.Namespace) -> int:
    from app.attachments import AttachmentError, combined, load_attachment
    from app.toolbox import Toolbox
    from app.tools.base import Tool
    from app.tools.mcp.config import McpConfigError
    from app.turn.events import TurnEnded
    from app.turn.runner import TurnRunner
    from app.turn.tool_step import AllowAll, DenyAll, ToolStep
    from routing.router import RoutingPrefs
    from routing.transcript import Notice, NoticeKind
    from vision.pdf import PdfNeedsPassword

    try:
        attached = [load_attachment(path) for path in args.attach]
    except PdfNeedsPassword as exc:
        raise CommandError(
            f"{exc} `sightline ask` can't ask for it: attach it in the window, which does."
        ) from None
    except AttachmentError as exc:
        raise CommandError(str(exc)) from None
    pictures, pdfs = combined(attached)
    if not args.prompt.strip():
        raise CommandError('the prompt is empty: say what to ask, e.g. sightline ask "hello".')
    try:
        toolbox = Toolbox(args.mcp_config or config.mcp_config)
    except McpConfigError as exc:
        raise CommandError(str(exc)) from None
    store = _open_store(config)
    catalogue = _catalogue(config, store)
    try:
        await _check_model(args.model, catalogue)
    except CommandError:
        await catalogue.aclose()
        store.close()
        raise
    printer = _JsonPrinter(sys.stdout) if args.json else _PlainPrinter(sys.stdout, sys.stderr)
    ended: TurnEnded | None = None
    try:
        conversation_id = args.conversation
        if conversation_id is None:
            conversation_id = store.conversations.create(model=args.model)
        elif store.conversations.get(conversation_id) is None:
            raise CommandError(f"there is no conversation {conversation_id!r}.")
        tools: list[Tool] = []
        if args.allow_tools:
            tools = await toolbox.tools()
            for name, problem in toolbox.problems.items():
                notice = Notice(
                    NoticeKind.ERROR, f"The MCP server {name} is unavailable: {problem}"
                )
                printer.show_notice(notice)
                store.add_notice(conversation_id, notice)
        prefs = RoutingPrefs(config.auto_may_use_cloud, config.vision_model, config.check_sight)
        step = (
            ToolStep(AllowAll())
            if args.allow_tools
            else ToolStep(DenyAll(), withheld=toolbox.could_offer)
        )
        runner = TurnRunner(store, catalogue, step, prefs=prefs)
        turn = runner.run(
            conversation_id, args.prompt, pictures, args.model, tools=tools, pdfs=pdfs
        )
        async with aclosing(turn) as events:
            async for event in events:
                printer.show(event)
                for notice in _not_allowed(event, args.allow_tools):
                    printer.show_notice(notice)
                    store.add_notice(conversation_id, notice)
                if isinstance(event, TurnEnded):
                    ended = event
    finally:
        await toolbox.aclose()
        await catalogue.aclose()
        store.close()
    if ended is None or ended.error is not None:
        message = ended.error.message if ended and ended.error else "the turn did not finish"
        message += _tried(catalogue, ended.error if ended else None)
        if args.json:
            print(json.dumps({"type": "error", "message": message}), flush=True)
        raise CommandError(message)
    printer.finish(conversation_id)
    return 0


def _not_allowed(event: TurnEvent, allowed: bool) -> list[Notice]:
    """For each call of a tool this run did not allow: which, and how to allow it."""
    from app.turn.events import ItemAdded
    from app.turn.tool_step import NOT_ALLOWED
    from routing.transcript import Message, Notice, NoticeKind

    if allowed or not isinstance(event, ItemAdded) or not isinstance(event.item.item, Message):
        return []
    return [
        Notice(
            NoticeKind.INFO,
            f"The model asked to use the tool {shown_name(result.name)}, which this run does "
            "not allow; run `sightline ask --allow-tools ...` to let it use tools.",
        )
        for result in event.item.item.tool_results
        if result.is_error and result.text == NOT_ALLOWED.format(name=result.name)
    ]


def _tried(catalogue: Any, error: object) -> str:
    """For a turn nothing could answer: the addresses tried, when the error names none."""
    from routing.endpoints import endpoint_name
    from routing.errors import CannotConnect

    if not isinstance(error, CannotConnect):
        return ""
    tried = [
        f"{s.provider.id} at {endpoint_name(s.provider.base_url)}"
        for s in catalogue.statuses()
        if s.error is not None and endpoint_name(s.provider.base_url) not in str(error)
    ]
    return f" Tried: {', '.join(tried)}." if tried else ""


async def _check_model(ref: str, catalogue: Any, *, auto_allowed: bool = True) -> None:
    """Refuse a --model that names no model, before anything is stored or sent."""
    from routing.router import is_auto

    if is_auto(ref):
        if auto_allowed:
            return
        raise CommandError("name the model to check as PROVIDER:MODEL (`sightline models`).")
    provider, _, name = ref.strip().partition(":")
    ids = [p.id for p in catalogue.providers]
    if not provider:
        raise CommandError(
            f"--model {ref!r} names no provider: write PROVIDER:MODEL, such as "
            f"{_example(ids)}:{name or 'MODEL'}."
        )
    if provider in ids and not name:
        raise CommandError(
            f"--model {ref!r} names the provider but no model: write {provider}:MODEL "
            "(`sightline models` lists them)."
        )
    if provider in ids:
        return
    await catalogue.refresh()
    matches = [m.ref for m in catalogue.models() if m.name == ref.strip()]
    hint = (
        f"; did you mean {matches[0]}?"
        if matches
        else (f" (providers: {', '.join(ids) or 'none'}; `sightline models` lists their models).")
    )
    raise CommandError(f"no provider {provider!r}{hint}")


def _example(ids: list[str]) -> str:
    return ids[0] if ids else "ollama"


class _PlainPrinter:
    """The answer on stdout as it streams; notices on stderr."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out, self.err = out, err

    def show(self, event: TurnEvent) -> None:
        from app.turn.events import ItemAdded, TextAdded
        from routing.transcript import Notice, NoticeKind

        if isinstance(event, TextAdded):
            self.out.write(event.text)
            self.out.flush()
        elif isinstance(event, ItemAdded) and isinstance(event.item.item, Notice):
            notice = event.item.item
            if notice.kind != NoticeKind.ERROR:  # an error ends as the one-line exit message
                self.show_notice(notice)

    def show_notice(self, notice: Notice) -> None:
        """One notice on stderr."""
        # One line each, whatever a file's name or a server's words hold.
        details = f" ({shown_name(notice.details)})" if notice.details else ""
        print(f"[{notice.kind}] {shown_name(notice.text)}{details}", file=self.err, flush=True)

    def finish(self, conversation_id: str) -> None:
        self.out.write("\n")
        self.out.flush()


class _JsonPrinter:
    """One JSON object per line, each with a `type`."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def _emit(self, obj: dict[str, Any]) -> None:
        self.out.write(json.dumps(obj) + "\n")
        self.out.flush()

    def show(self, event: TurnEvent) -> None:
        from app.turn.events import ItemAdded, PartAdded, TextAdded, UsageAdded
        from routing.transcript import Message, Notice, NoticeKind, ToolCall

        if isinstance(event, PartAdded) and isinstance(event.part, ToolCall):
            call = event.part
            self._emit(
                {
                    "type": "tool_call",
                    "id": call.id,
                    "name": call.name,
                    "arguments": dict(call.arguments),
                }
            )
        elif isinstance(event, TextAdded):
            self._emit({"type": "text", "text": event.text})
        elif isinstance(event, UsageAdded):
            usage = event.usage
            self._emit(
                {
                    "type": "usage",
                    "for": event.source,
                    "input_tokens": usage.input_tokens,
                    "output_tokens": usage.output_tokens,
                }
            )
        elif isinstance(event, ItemAdded):
            item = event.item.item
            if isinstance(item, Notice) and item.kind != NoticeKind.ERROR:
                self.show_notice(item)
            elif isinstance(item, Message):
                for result in item.tool_results:
                    self._emit(
                        {
                            "type": "tool_result",
                            "id": result.call_id,
                            "name": result.name,
                            "text": result.text,
                            "is_error": result.is_error,
                            "pictures": len(result.pictures),
                        }
                    )

    def show_notice(self, notice: Notice) -> None:
        """One notice as a JSON line."""
        line = {"type": "notice", "kind": str(notice.kind), "text": notice.text}
        if notice.details:
            line["details"] = notice.details
        self._emit(line)

    def finish(self, conversation_id: str) -> None:
        self._emit({"type": "done", "conversation": conversation_id})
