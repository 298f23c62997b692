"""The describer's instructions, kept as a resource file so they can be read and tuned."""

from __future__ import annotations

from functools import cache

import resources


@cache
def describer_prompt() -> str:
    """The system prompt a seeing model gets when it describes a picture."""
    return resources.read_text(resources.DESCRIBER_PROMPT).strip()
