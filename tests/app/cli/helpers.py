"""What the command's tests share: `sightline` run as a whole process, as a person runs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import SightlineHome

ROOT = Path(__file__).resolve().parents[3]


def sightline(
    home: SightlineHome, *args: str, env: dict[str, str] | None = None, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    """`sightline ARGS…` run where a person would run it (the checkout, unless `cwd`)."""
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        env=env or home.env(),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
    )
