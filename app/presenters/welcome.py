"""The welcome in the empty chat the first time, with no Qt: which local servers answered,
and what to do next.

First time means no config file and no conversations yet (app/presenters/first_run.py).
Every state ends in something to do: write a message, pull a model, try again, or add a
cloud provider.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.presenters.listing import ModelListing
from routing.endpoints import endpoint_name

_NAMES = {"ollama": "Ollama", "lmstudio": "LM Studio", "llamacpp": "llama.cpp"}
_PULL = {
    "ollama": "run `ollama pull llama3.2` (or `ollama pull qwen2.5vl:3b`, which sees pictures)",
    "lmstudio": "download a model in LM Studio and load it",
    "llamacpp": "start llama-server with a model (`llama-server -m model.gguf`)",
}


@dataclass(frozen=True)
class Server:
    """One local server Sightline looked for, and what it found there."""

    name: str
    address: str  # host:port
    found: bool
    models: int = 0
    problem: str = ""  # why it did not answer, in the provider's words when known

    @property
    def words(self) -> str:
        """One line about this server."""
        if not self.found:
            return f"{self.name} at {self.address}: not running"
        if not self.models:
            return f"{self.name} at {self.address}: running, but it has no models yet"
        return f"{self.name} at {self.address}: {self.models} model{'s' * (self.models != 1)}"


@dataclass(frozen=True)
class Welcome:
    """What the first-run panel says: the servers looked for, and what to do next."""

    servers: tuple[Server, ...]
    next_step: str
    can_retry: bool

    @property
    def ready(self) -> bool:
        """Whether some model can answer right now."""
        return any(s.found and s.models for s in self.servers)


def welcome(listing: ModelListing) -> Welcome | None:
    """The welcome for a finished listing; None while Sightline is still looking."""
    if listing.listing:
        return None
    statuses = {s.provider.id: s for s in listing.statuses}
    servers: list[Server] = []
    for provider in listing.providers:
        status = statuses.get(provider.id)
        name = _NAMES.get(provider.id, provider.id)
        address = endpoint_name(provider.base_url)
        if status is None or status.error is not None:
            problem = status.error.message if status and status.error else ""
            servers.append(Server(name, address, False, problem=problem))
        else:
            servers.append(Server(name, address, True, len(status.models)))
    ready = [s for s in servers if s.found and s.models]
    if ready:
        step = (
            "Write your first message below: Auto answers with a model on this computer, "
            "or choose one in the Model list (Ctrl+K). Nothing leaves this computer unless "
            "you add a cloud provider."
        )
        return Welcome(tuple(servers), step, can_retry=False)
    pulls = [
        _PULL.get(provider.id, "load a model in it")
        for provider, server in zip(listing.providers, servers, strict=True)
        if server.found and not server.models
    ]
    if pulls:
        step = (
            f"A server is running but has no model: {pulls[0]}, then press Try again. "
            "Or add a cloud provider."
        )
    else:
        step = (
            "No model server is running on this computer. To chat privately here, install "
            "Ollama from ollama.com and run `ollama pull llama3.2` (or start LM Studio's "
            "server), then press Try again. Or add a cloud provider with its API key."
        )
    return Welcome(tuple(servers), step, can_retry=True)
