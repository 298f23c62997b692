"""Running `sightline` as a person does: a whole process with its own environment."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Never the person's real keyring, whatever this machine has.
NO_KEYRING = {"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}


def command(*args: str) -> list[str]:
    """The command line of `sightline ARGS...` run by this Python."""
    return [sys.executable, "-m", "app", *args]


def sightline(
    env: dict[str, str], *args: str, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """Run `sightline ARGS...` to its end."""
    return subprocess.run(
        command(*args),
        env=env | NO_KEYRING,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )
