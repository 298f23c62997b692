"""What a JSON value is, in words: for a message that says what was found where something
else belongs. Imports nothing, so the readers of config loaded before the first paint can
use it."""

from __future__ import annotations

from typing import Any


def json_kind(value: Any) -> str:
    """What a JSON value is, in words ("a string", "an object", "true"), for a message that
    says what was found where something else belongs."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"
