"""What can go wrong with an agent, in words that say what to do next."""

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


INSTALL_HINT = (
    "Agents are programs installed on their own, such as OpenCode "
    '(`npm install -g opencode-ai`, then command = "opencode", args = ["acp"]); '
    "set the agent's command to the program's full path if it is not on PATH."
)
