"""Why an ACP agent's turn failed, in words that say what to do next (the problems
themselves are every agent's: app/turn/agent_problems.py)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from acp import RequestError

from app.turn.agent_problems import AgentProblem, AgentStopped

if TYPE_CHECKING:
    from app.turn.acp.session import AgentSession

log = logging.getLogger(__name__)


def why_failed(session: AgentSession, exc: BaseException) -> AgentProblem:
    """A failed prompt, in words; AgentStopped when the agent must be started again."""
    agent = session.agent.id
    log.info("the agent %s failed its turn: %r", agent, exc)
    if session.process.malformed:
        return AgentStopped(
            f"The agent {agent} sent {session.process.malformed}, which Sightline can't "
            "read, so its turn ended; what it said is kept. Your next message starts it again."
        )
    if not session.running or isinstance(exc, ConnectionError):
        status = session.process.exit_status()
        how = f" (exit status {status})" if status is not None else ""
        return AgentStopped(
            f"The agent {agent} stopped mid-turn{how}; what it said is kept. Your next "
            "message starts it again."
        )
    if isinstance(exc, RequestError):
        return AgentProblem(f"The agent {agent} could not answer: {exc}", str(exc.data or ""))
    return AgentStopped(
        f"The agent {agent} answered in a way Sightline can't read, so its turn ended; "
        "your next message starts it again.",
        detail=f"{type(exc).__name__}: {exc}"[:2000],
    )


INSTALL_HINT = (
    "Agents are programs installed on their own, such as OpenCode "
    '(`npm install -g opencode-ai`, then command = "opencode", args = ["acp"]); '
    "set the agent's command to the program's full path if it is not on PATH."
)
