"""An agent's command looked for (never run), and shown as a person would type it.

Settings → Agents says whether each agent's program is there to start before it is
added; its `env` values may hold tokens, so they are shown masked.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path

MASK = "•••"


def command_status(
    command: str, env: Iterable[tuple[str, str]] = (), environ: Mapping[str, str] = os.environ
) -> tuple[bool, str]:
    """Whether the command is there to start, and where it is, in words."""
    if os.sep in command or (os.altsep and os.altsep in command):
        path = Path(command)
        if not path.is_absolute():
            return False, "a relative path: write its full path"
        if path.is_dir():
            return False, f"{command} is a folder, not a program"
        if not path.is_file():
            return False, f"no file {command} on this computer"
        if not os.access(path, os.X_OK):
            return False, f"{command} is a file, but not one that can be run"
        return True, f"found: {command}"
    search = dict(env).get("PATH") or environ.get("PATH", os.defpath)
    found = shutil.which(command, path=search)
    if found is None:
        return False, "not found on PATH: install it, or write its full path"
    return True, f"found on PATH: {found}"


def shown_command(command: str, args: Iterable[str], limit: int = 90) -> str:
    """A command line as a person would type it, cut to `limit` characters."""
    words = [command, *args]
    line = " ".join(json.dumps(w) if not w or any(c.isspace() for c in w) else w for w in words)
    return line if len(line) <= limit else line[: limit - 1] + "…"


def masked_env(env: Iterable[tuple[str, str]]) -> str:
    """The environment's names with every value hidden: `NAME=•••`."""
    return ", ".join(f"{name}={MASK}" for name, _ in env)
