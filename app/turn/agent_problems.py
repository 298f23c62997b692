"""What can go wrong with an agent (an ACP agent or Codex), named for what happens next.

Both protocols end a turn with these: the engines' base (app/turn/agent_engine.py)
drops an agent whose problem is `AgentStopped`, and cancels one that is `AgentCut`.
"""

from __future__ import annotations

from app.turn.events import TurnProblem


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
