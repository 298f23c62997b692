"""`sightline mcp-serve`: the door (app/tools/door.py) as an MCP server on stdin and stdout.

An agent starts it from the `session/new` entry Sightline gave it. Its stdout is the
protocol, so nothing else is ever printed there: Sightline's log takes the rest.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
from typing import TYPE_CHECKING, Any

from app.cli.common import catalogue_for, open_store

if TYPE_CHECKING:
    from collections.abc import Callable

    from app.config import Config
    from app.store import Store
    from routing.catalogue import Catalogue
    from routing.router import RoutingPrefs
    from routing.transcript import Notice, ToolCall, ToolResult

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
    serve.add_argument("--conversation", metavar="ID", help="store disclosures in this chat")
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
        help="ask the running Sightline at this line for each call, and tell it what crossed "
        "(its token in SIGHTLINE_DOOR_TOKEN)",
    )


async def serve(config: Config, args: argparse.Namespace) -> int:
    """Serve the door until the agent closes its stdin."""
    import asyncio  # not at import: the window's first paint comes before asyncio loads

    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    from app.tools.door import Door
    from app.tools.door_line import TOKEN_ENV, ask_line
    from app.tools.read_file import ReadFile
    from app.tools.screenshot import Screenshot
    from app.version import installed_version
    from routing.router import RoutingPrefs

    agent = next((p for p in config.providers if p.id == args.agent and p.is_agent), None)
    # As the agent that started it says, else as the config has it (`local` defaults false).
    local = args.local or (agent.is_local if agent is not None else False)
    store = open_store(config) if args.conversation else None
    # Headless, who looks comes from the config's providers, as `ask` finds them.
    catalogue = catalogue_for(config, store) if not args.sees else None

    line = args.ask if args.ask and os.environ.get(TOKEN_ENV) else ""
    token = os.environ.get(TOKEN_ENV, "")
    told: set[asyncio.Task[None]] = set()

    def tell(notice: Notice) -> None:
        if not line:
            _tell(store, args.conversation, notice)
            return
        # Told to the running turn, which stores it and shows it at once; kept if it can't.
        task = asyncio.get_running_loop().create_task(_tell_line(line, token, notice, store, args))
        told.add(task)
        task.add_done_callback(told.discard)

    async def approve(call: ToolCall) -> bool:
        await asyncio.gather(*told)  # what crossed before is told before the next call asks
        return await ask_line(line, token, call)

    prefs = RoutingPrefs(config.auto_may_use_cloud, config.vision_model, config.check_sight)
    describing = _Describing(catalogue, prefs, args.agent or "the agent", local, tell)
    door = Door(
        [ReadFile(), Screenshot()],
        allowed=args.allow_tools,
        approve=approve if line else None,
        sees=args.sees,
        in_words=describing,
        agent=args.agent,
        agent_local=local,
        tell=tell,
    )

    async def list_tools(ctx: Any, params: Any) -> Any:
        from mcp import types

        return types.ListToolsResult(tools=door.listed())

    async def call_tool(ctx: Any, params: Any) -> Any:
        result = await door.call(params.name, params.arguments)
        await asyncio.gather(*told)  # the crossing is in the chat before the agent reads it
        return result

    server: Server[Any] = Server(
        "sightline",
        version=installed_version(),
        instructions="Sightline's own tools: read a file (pictures too), take a screenshot.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    try:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        if catalogue is not None:
            await catalogue.aclose()
        if store is not None:
            store.close()
    return 0


class _Describing:
    """A door result's pictures in words for an agent that doesn't take them (who looks
    as for any blind model), each crossing told; one budget for the whole run, so an agent
    calling in a loop can't have pictures described without end."""

    def __init__(
        self,
        catalogue: Catalogue | None,
        prefs: RoutingPrefs,
        agent: str,
        local: bool,
        tell: Callable[[Notice], None],
    ) -> None:
        from app.turn.engine_words import EngineWords, blind_engine
        from routing.describing.framing import TurnBudget

        self.words = EngineWords(catalogue, prefs, budget=TurnBudget())
        self.model = blind_engine(agent, "", local=local)
        self.tell = tell

    async def __call__(self, result: ToolResult) -> ToolResult:
        from routing.transcript import Message, ToolResult

        worded = await self.words.words((Message(role="tool", parts=(result,)),), self.model)
        for notice in worded.notices:
            self.tell(notice)
        parts = worded.messages[0].parts
        return next((p for p in parts if isinstance(p, ToolResult)), result)


async def _tell_line(
    line: str, token: str, notice: Notice, store: Store | None, args: argparse.Namespace
) -> None:
    from app.tools.door_line import tell_line

    if not await tell_line(line, token, notice):
        _tell(store, args.conversation, notice)  # the turn is gone: stored the old way


def _tell(store: Store | None, conversation: str | None, notice: Notice) -> None:
    """Store the notice in the chat when one is named; always log it."""
    from app.store import StoreError

    log.info("door: %s", notice.text)
    if store is None or not conversation:
        return
    with contextlib.suppress(StoreError):  # the chat is gone: the log keeps what crossed
        store.add_notice(conversation, notice)
