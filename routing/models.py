"""What Sightline knows of a provider and of each of its models.

Whether a model sees lives here, in `ModelInfo.sees`, and nowhere else: the
picker, attachment cards, router and describer all read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from routing.endpoints import on_this_computer


@dataclass(frozen=True)
class ProviderConfig:
    """One provider the person connected (or Sightline discovered)."""

    id: str
    kind: str
    base_url: str
    api_key: str = field(default="", repr=False)  # never printed, never logged
    enabled: bool = True
    local: bool | None = None  # None: decide from the address
    discovered: bool = False

    @property
    def is_local(self) -> bool:
        """Whether this provider runs on this computer (config overrides the address)."""
        if self.local is not None:
            return self.local
        return on_this_computer(self.base_url)

    def with_key(self, api_key: str) -> ProviderConfig:
        """The same provider with a key filled in."""
        return replace(self, api_key=api_key)


@dataclass(frozen=True)
class ModelInfo:
    """One model of one provider, with its abilities said outright (None = unknown)."""

    provider_id: str
    name: str
    sees: bool | None = None
    tools: bool | None = None
    local: bool = False
    context_length: int | None = None
    label: str = ""

    @property
    def ref(self) -> str:
        """`provider:model`, the form the command line and the store use."""
        return f"{self.provider_id}:{self.name}"


def split_ref(ref: str) -> tuple[str, str]:
    """Split `provider:model` at the first colon (Ollama model names have colons)."""
    provider, sep, model = ref.partition(":")
    if not sep or not provider or not model:
        raise ValueError(f"{ref!r} is not PROVIDER:MODEL (for example ollama:llama3.2:3b)")
    return provider, model
