"""The door's calls, run by the turn: Sightline's own tools for an agent, in Sightline.

The door the agent started (`sightline mcp-serve --ask LINE`) only relays: each call
comes here over its line (app/tools/door_line.py). Here it is asked of the person
through the turn's tool step (the window's approval card, headless `--allow-tools`),
run in Sightline's own process in the chat's working folder, its pictures given as
pictures to an agent that takes them (a crossing told) or put into words, as the sight
policy says (app/turn/sight_policy.py `DoorSight`, handed to the door). What the chat
is told is built here, from what Sightline knows of the agent, never from what its
door says.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.tools.door import Door
from app.tools.read_file import ReadFile
from app.tools.screenshot import Screenshot
from app.turn.sight_policy import DoorSight, SightPolicy, agent_sight

if TYPE_CHECKING:
    from app.turn.acp.session import AgentSession

log = logging.getLogger(__name__)


class DoorCalls:
    """Serves one agent session's door: `await calls(name, arguments)` is the MCP result."""

    def __init__(self, session: AgentSession, cwd: Path, sight: SightPolicy) -> None:
        self.session = session
        self.cwd = cwd
        self.sight = sight
        self._door: Door | None = None

    async def __call__(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Ask, run and shape one call; the result as MCP's JSON."""
        result = await self._for_session().call(name, arguments)
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)

    def _for_session(self) -> Door:
        """The door as this session's agent is: its sight is known once it initialized."""
        if self._door is not None:
            return self._door
        session = self.session
        agent = session.agent
        client = session.client

        def tell(notice: Any) -> None:
            client.door_told(notice)  # stored by the turn, in order with the agent's updates

        seen = agent_sight(agent.id, local=agent.is_local, sees=session.sees)
        self._door = Door(
            [ReadFile(self.cwd), Screenshot()],
            approve=client.door_asks,
            sight=DoorSight(self.sight, seen, tell),
            agent=agent.id,
            tell=tell,
        )
        return self._door
