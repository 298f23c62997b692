"""What can go wrong with an agent, in words that say what to do next."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from acp import RequestError

from app.turn.events import TurnProblem

if TYPE_CHECKING:
    from app.turn.acp.session import AgentSession

log = logging.getLogger(__name__)


class AgentProblem(TurnProblem):
    """An agent could not answer the turn; `message` says why and what to do."""

    kind = "agent"

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail


class AgentNotInstalled(AgentProblem):
    """The agent's command is not on this computer."""

    kind = "agent_not_installed"


class AgentNeedsSignIn(AgentProblem):
    """The agent asks the person to sign in first (its `authMethods`)."""

    kind = "agent_auth"


class AgentStopped(AgentProblem):
    """The agent's program ended, hung, or sent what can't be read: the next turn restarts it."""

    kind = "agent_stopped"


class AgentCut(AgentProblem):
    """Sightline stopped the agent's turn (its output reached the cap, or the turn its
    overall limit): cancelled as Stop cancels it, its session kept."""

    kind = "agent_cut"


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
