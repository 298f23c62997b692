"""Which wire speaks for which provider kind."""

from __future__ import annotations

import importlib
from dataclasses import replace

from routing.models import ProviderConfig
from routing.presets import KINDS, base_url_for, preset_for, wire_for
from routing.wires.base import Wire

# Named, not imported, so listing the kinds loads no HTTP client (start-up stays lean).
_WIRE_CLASSES: dict[str, str] = {
    "ollama": "routing.wires.ollama:OllamaWire",
    "openai_chat": "routing.wires.openai_chat:OpenAIChatWire",
    "responses": "routing.wires.responses:ResponsesWire",
    "gemini": "routing.wires.gemini:GeminiWire",
    "lmstudio": "routing.wires.lmstudio:LMStudioWire",
    "anthropic": "routing.wires.anthropic:AnthropicWire",
}


def known_kinds() -> tuple[str, ...]:
    """Every provider kind a config may name."""
    return KINDS


def make_wire(provider: ProviderConfig) -> Wire:
    """The wire for a provider, by its kind's preset and the `api` it chose."""
    preset = preset_for(provider.kind)
    if provider.api == "chat" and preset.chat_base_url and not provider.base_url:
        # Its chat endpoint lives apart from its own API (Gemini's compatibility endpoint).
        provider = replace(provider, base_url=base_url_for(preset, provider.api))
    module_name, _, class_name = _WIRE_CLASSES[wire_for(preset, provider.api)].partition(":")
    wire_class = getattr(importlib.import_module(module_name), class_name)
    wire: Wire = wire_class(provider)
    return wire
