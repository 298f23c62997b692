"""What the command's tests share: `sightline` run as a whole process, as a person runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from PIL import Image

from tests.conftest import SightlineHome

ROOT = Path(__file__).resolve().parents[3]


def sightline(
    home: SightlineHome, *args: str, env: dict[str, str] | None = None, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    """`sightline ARGS…` run where a person would run it (the checkout, unless `cwd`)."""
    return python(home, "-m", "app", *args, env=env, cwd=cwd)


def python(
    home: SightlineHome, *args: str, env: dict[str, str] | None = None, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    """`python ARGS…` in `home`'s environment, its output kept as text."""
    return subprocess.run(
        [sys.executable, *args],
        env=env or home.env(),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
    )


def refused_then_allowed(
    home: SightlineHome, model: str, text: str
) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    """`ask` once without --allow-tools (the turn still ends well), then once with it."""
    refused = sightline(home, "ask", "--model", model, text)
    assert refused.returncode == 0, refused.stderr
    return refused, sightline(home, "ask", "--allow-tools", "--model", model, text)


def asked_with_a_picture(
    home: SightlineHome, folder: Path, model: str, text: str
) -> list[dict[str, Any]]:
    """`ask --json` with a small red PNG attached; the lines it printed, read."""
    picture = folder / "red.png"
    Image.new("RGB", (8, 8), "red").save(picture)
    done = sightline(home, "ask", "--json", "--model", model, "--attach", str(picture), text)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]
