"""The tools Sightline offers a model: the built-in ones (and, with a config, MCP servers')."""

from __future__ import annotations

from app.tools.base import Tool
from app.tools.read_file import ReadFile
from app.tools.screenshot import Screenshot


def builtin_tools() -> list[Tool]:
    """The tools every chat can use."""
    return [ReadFile(), Screenshot()]
