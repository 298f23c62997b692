"""Which wire speaks for which provider kind."""

from __future__ import annotations

from routing.models import ProviderConfig
from routing.wires.base import Wire

# Kept as names so listing the kinds imports no wire (start-up stays lean).
WIRE_KINDS: dict[str, str] = {
    "ollama": "routing.wires.ollama:OllamaWire",
}


def known_kinds() -> tuple[str, ...]:
    """Every provider kind a config may name."""
    return tuple(WIRE_KINDS)


def make_wire(provider: ProviderConfig) -> Wire:
    """The wire for a provider, by its kind."""
    import importlib

    target = WIRE_KINDS.get(provider.kind)
    if target is None:
        raise ValueError(f"no wire speaks provider kind {provider.kind!r}")
    module_name, _, class_name = target.partition(":")
    wire_class = getattr(importlib.import_module(module_name), class_name)
    wire: Wire = wire_class(provider)
    return wire
