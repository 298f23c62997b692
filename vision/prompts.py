"""The describer's instructions, kept as a resource file so they can be read and tuned."""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path


def _resources() -> Path:
    # The same folder app.paths.resources_dir() finds; vision may not import app.
    frozen_root = getattr(sys, "_MEIPASS", None)
    if frozen_root:
        return Path(frozen_root) / "resources"
    return Path(__file__).resolve().parent.parent / "resources"


@cache
def describer_prompt() -> str:
    """The system prompt a seeing model gets when it describes a picture."""
    return (_resources() / "describer_prompt.md").read_text(encoding="utf-8").strip()
