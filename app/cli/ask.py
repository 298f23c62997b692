"""`sightline ask`: one turn without a window, printed as it streams."""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import aclosing
from typing import TYPE_CHECKING

from app.cli.common import CommandError, check_model, conversation_named, set_up
from app.cli.printers import JsonPrinter, PlainPrinter
from app.turn.turn_input import TurnInput
from vision.labels import shown_name

if TYPE_CHECKING:
    from pathlib import Path

    from app.assembly import Assembly
    from app.cli.start_collection import StartCollection
    from app.config import Config
    from app.toolbox import Toolbox
    from app.turn.agents import AgentEngines
    from app.turn.engine import Engine
    from app.turn.events import TurnEvent
    from app.turn.tool_step import ToolStep
    from routing.catalogue import Catalogue
    from routing.chat_settings import ChatSettings
    from routing.transcript import Notice
    from vision.pdf import PdfFile
    from vision.pictures import Picture


async def ask(
    config: Config, args: argparse.Namespace, start: StartCollection | None = None
) -> int:
    """One turn, printed as it comes; `start`: the command's start, over once the model
    answers (by then the wire and everything else the turn needs is loaded)."""
    from app.tools.base import Tool
    from app.turn.events import ItemAdded, TurnEnded
    from app.turn.tool_step import AllowAll, DenyAll
    from routing.chat_settings import ChatSettings
    from routing.transcript import Notice, NoticeKind

    pictures, pdfs = _attached(args.attach)
    settings = _settings(args)
    _check_regenerate(args, attached=bool(args.attach))
    if not args.regenerate and not args.prompt.strip():
        raise CommandError('the prompt is empty: say what to ask, e.g. sightline ask "hello".')
    requested = "auto" if args.model is None else args.model
    toolbox = _toolbox(args.mcp_config or config.mcp_config)
    assembly = set_up(config)
    store, agents, agent = assembly.store, assembly.agents, assembly.agent_named(requested)
    if agent is not None and args.regenerate:
        store.close()
        raise CommandError("--regenerate is not offered for agents yet: ask again instead.")
    catalogue = assembly.catalogue()
    try:
        if agent is None:  # an agent is no catalogue model: its own program says what it has
            await check_model(requested, catalogue, agents=[a.id for a in agents])
    except CommandError:
        await catalogue.aclose()
        store.close()
        raise
    printer = JsonPrinter(sys.stdout) if args.json else PlainPrinter(sys.stdout, sys.stderr)
    ended: TurnEnded | None = None
    agent_engine: AgentEngines | None = None
    try:
        conversation_id = args.conversation
        if conversation_id is None:
            conversation_id = store.conversations.create(model=requested)
            # A new chat keeps what it was started with; an existing one is only overridden.
            store.conversations.set_settings(conversation_id, settings)
            settings = ChatSettings()
        else:
            summary = conversation_named(store, conversation_id)
            if args.regenerate and args.model is None:
                requested = summary.model or "auto"  # the model the chat was using
        tools: list[Tool] = []
        if args.allow_tools and agent is None:  # an agent brings its own tools
            tools = await toolbox.tools()
            for name, problem in toolbox.problems.items():
                notice = Notice(
                    NoticeKind.ERROR, f"The MCP server {name} is unavailable: {problem}"
                )
                printer.show_notice(notice)
                store.add_notice(conversation_id, notice)
        step = (
            assembly.tool_step(AllowAll())
            if args.allow_tools
            else assembly.tool_step(DenyAll(), withheld=toolbox.could_offer)
        )
        runner = assembly.runner(catalogue, step)
        if agent is not None:
            agent_engine = _agent_engines(assembly, args, catalogue, step)
        engine: Engine = assembly.engine(requested, runner, agent_engine)
        if args.regenerate:
            turn = runner.regenerate(conversation_id, None, requested, tools, settings)
        else:
            asked = TurnInput(
                conversation_id, args.prompt, pictures, requested, tools, pdfs, settings
            )
            turn = engine.run(asked)
        async with aclosing(turn) as events:
            async for event in events:
                if start is not None and start.held and not isinstance(event, ItemAdded):
                    start.resume()  # the answer's first word, thought, call, or the end
                printer.show(event)
                for notice in _not_allowed(event, args.allow_tools):
                    printer.show_notice(notice)
                    store.add_notice(conversation_id, notice)
                if isinstance(event, TurnEnded):
                    ended = event
    finally:
        printer.flush()  # the words so far, before any line that ends the turn on stderr
        if agent_engine is not None:
            await agent_engine.aclose()
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


def _attached(paths: list[Path]) -> tuple[tuple[Picture, ...], tuple[PdfFile, ...]]:
    """The pictures and PDFs of `--attach`, read and checked (their readers load only for
    a file to read: a question of words needs neither)."""
    if not paths:
        return (), ()
    from app.attachments import AttachmentError, combined, load_attachment
    from vision.pdf import PdfNeedsPassword

    try:
        return combined([load_attachment(path) for path in paths])
    except PdfNeedsPassword as exc:
        raise CommandError(
            f"{exc} `sightline ask` can't ask for it: attach it in the window, which does."
        ) from None
    except AttachmentError as exc:
        raise CommandError(str(exc)) from None


def _toolbox(mcp_config: Path | None) -> Toolbox:
    """The run's tools: the MCP servers' file read now, when there is one."""
    from app.toolbox import Toolbox

    if mcp_config is None:
        return Toolbox()
    from app.tools.mcp.config import McpConfigError

    try:
        return Toolbox(mcp_config)
    except McpConfigError as exc:
        raise CommandError(str(exc)) from None


def _agent_engines(
    assembly: Assembly, args: argparse.Namespace, catalogue: Catalogue, step: ToolStep
) -> AgentEngines:
    """The agents' engines for this run: the person's MCP servers; a chat's agent works in
    the folder the chat keeps, a new chat's where `ask` runs (and the chat keeps it)."""
    from pathlib import Path

    from app.tools.mcp.config import McpConfigError

    try:
        servers = assembly.mcp_servers(args.mcp_config)
    except McpConfigError as exc:
        raise CommandError(str(exc)) from None
    hint = "" if args.allow_tools else " Run `sightline ask --allow-tools ...` to allow it."
    folders = assembly.folders(Path.cwd())
    return assembly.agent_engines(catalogue, step, folders, mcp_servers=servers, denied_hint=hint)


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


def _tried(catalogue: Catalogue, error: object) -> str:
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


def _settings(args: argparse.Namespace) -> ChatSettings:
    """The --system, --temperature and --max-tokens given, checked."""
    from routing.chat_settings import SettingsInvalid, checked

    try:
        return checked(args.system, args.temperature, args.max_tokens)
    except SettingsInvalid as exc:
        raise CommandError(str(exc)) from None


def _check_regenerate(args: argparse.Namespace, *, attached: bool) -> None:
    """--regenerate answers a chat's last message again: it needs the chat, and no new words."""
    if not args.regenerate:
        return
    if args.conversation is None:
        raise CommandError(
            "--regenerate answers a conversation's last message again: add --conversation ID "
            "(`sightline chats` lists them)."
        )
    if args.prompt.strip() or attached:
        raise CommandError(
            "--regenerate sends no new message: leave out the prompt and --attach "
            "(to say something new, leave out --regenerate)."
        )
