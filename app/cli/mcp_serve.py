"""`sightline mcp-serve`: the door (app/tools/door.py) as an MCP server on stdin and stdout.

An agent starts it from the `session/new` entry Sightline gave it. Its stdout is the
protocol, so nothing else is ever printed there: Sightline's log takes the rest.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.config import Config
    from routing.transcript import Notice, ToolResult

log = logging.getLogger(__name__)


def add_parser(commands: Any) -> None:
    """The subcommand's flags, which the ACP engine sets for each agent it starts."""
    serve = commands.add_parser(
        "mcp-serve", help="offer Sightline's read_file and screenshot to an agent over MCP stdio"
    )
    serve.add_argument(
        "--allow-tools", action="store_true", help="allow every call for this run (else refused)"
    )
    sight = serve.add_mutually_exclusive_group()
    sight.add_argument(
        "--sees", action="store_true", help="the agent takes pictures: send them as images"
    )
    sight.add_argument(
        "--blind", action="store_true", help="the agent takes no pictures: describe them (default)"
    )
    serve.add_argument(
        "--agent", metavar="ID", default="", help="the agent (as the config names it)"
    )
    serve.add_argument(
        "--local", action="store_true", help="the agent's model runs on this computer"
    )
    serve.add_argument(
        "--ask",
        metavar="LINE",
        default="",
        help="hand each call to the running Sightline at this line, which asks the person and "
        "runs it (its token in SIGHTLINE_DOOR_TOKEN); the other flags then do nothing",
    )


async def serve(config: Config, args: argparse.Namespace) -> int:
    """Serve the door until the agent closes its stdin."""
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    from app.cli.door_stdin import BoundedStdin
    from app.version import installed_version

    if args.ask:
        listed, call, close = _relay(args.ask)
    else:
        listed, call, close = _standalone(config, args)

    async def list_tools(ctx: Any, params: Any) -> Any:
        from mcp import types

        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: Any, params: Any) -> Any:
        return await call(params.name, params.arguments)

    server: Server[Any] = Server(
        "sightline",
        version=installed_version(),
        instructions="Sightline's own tools: read a file (pictures too), take a screenshot.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    try:
        async with stdio_server(stdin=BoundedStdin()) as (read, write):  # type: ignore[arg-type]
            await server.run(read, write, server.create_initialization_options())
    finally:
        await close()
    return 0


Call = Callable[[str, "dict[str, Any] | None"], Awaitable[Any]]


def _relay(line: str) -> tuple[list[Any], Call, Callable[[], Awaitable[None]]]:
    """A door with a line runs nothing itself: each call goes to the running turn, which
    asks the person, runs it and sends back the result (app/tools/door_line.py)."""
    from mcp import types
    from pydantic import ValidationError

    from app.tools.door import Door, error_content
    from app.tools.door_line import MAX_LINE, TOKEN_ENV, call_line
    from app.tools.read_file import ReadFile
    from app.tools.screenshot import Screenshot
    from routing.wires.payload import bounded_arguments

    token = os.environ.get(TOKEN_ENV, "")
    listed = Door([ReadFile(), Screenshot()], sees=False, in_words=_as_is).listed()

    async def call(name: str, arguments: dict[str, Any] | None) -> Any:
        bounded = dict(bounded_arguments(arguments or {}))
        if len(json.dumps(bounded, ensure_ascii=False)) > MAX_LINE - 1024:
            return error_content(f"The arguments of {name[:80]!r} are too large to send.")
        found = await call_line(line, token, name, bounded)
        if found is None:
            return error_content(
                "Sightline did not answer this call (the turn that started this agent has "
                "ended, or this door was not started by Sightline), so it was not run."
            )
        try:
            return types.CallToolResult.model_validate(found)
        except ValidationError:
            log.info("the door could not read Sightline's answer to %s", name[:80])
            return error_content("Sightline's answer to this call could not be read.")

    async def close() -> None:
        return None

    return listed, call, close


def _standalone(
    config: Config, args: argparse.Namespace
) -> tuple[list[Any], Call, Callable[[], Awaitable[None]]]:
    """A door started by hand runs its calls itself, only with --allow-tools; what crossed
    goes to the log, under the name it was given, shown as a name."""
    from app.assembly import Assembly
    from app.tools.door import Door
    from app.tools.read_file import ReadFile
    from app.tools.screenshot import Screenshot
    from app.turn.engine_words import EngineWords, ResultWords, blind_engine
    from vision.labels import shown_name

    agent_id = shown_name(str(args.agent)[:200])
    agent = next((p for p in config.providers if p.id == args.agent and p.is_agent), None)
    # As the agent that started it says, else as the config has it (`local` defaults false).
    local = args.local or (agent.is_local if agent is not None else False)
    # Headless, who looks comes from the config's providers, as `ask` finds them.
    assembly = Assembly(config)  # it keeps nothing: no store
    catalogue = assembly.catalogue() if not args.sees else None
    words = EngineWords(catalogue, assembly.prefs)
    model = blind_engine(agent_id or "the agent", "", local=local)
    door = Door(
        [ReadFile(), Screenshot()],
        allowed=args.allow_tools,
        sees=args.sees,
        in_words=ResultWords(words, model, _logged),
        agent=agent_id,
        agent_local=local,
        tell=_logged,
    )

    async def close() -> None:
        if catalogue is not None:
            await catalogue.aclose()

    return door.listed(), door.call, close


async def _as_is(result: ToolResult) -> ToolResult:
    return result


def _logged(notice: Notice) -> None:
    log.info("door: %s", notice.text)
