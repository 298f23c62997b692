"""Which wire speaks for which provider kind."""

from __future__ import annotations

import importlib

from routing.models import ProviderConfig
from routing.presets import KINDS, preset_for
from routing.wires.base import Wire

# Named, not imported, so listing the kinds loads no HTTP client (start-up stays lean).
_WIRE_CLASSES: dict[str, str] = {
    "ollama": "routing.wires.ollama:OllamaWire",
    "openai_chat": "routing.wires.openai_chat:OpenAIChatWire",
    "lmstudio": "routing.wires.lmstudio:LMStudioWire",
    "anthropic": "routing.wires.anthropic:AnthropicWire",
}


def known_kinds() -> tuple[str, ...]:
    """Every provider kind a config may name."""
    return KINDS


def make_wire(provider: ProviderConfig) -> Wire:
    """The wire for a provider, by its kind's preset."""
    module_name, _, class_name = _WIRE_CLASSES[preset_for(provider.kind).wire].partition(":")
    wire_class = getattr(importlib.import_module(module_name), class_name)
    wire: Wire = wire_class(provider)
    return wire
