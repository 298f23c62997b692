"""screenshot on a real X display (Xvfb) and without any display."""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]

# Runs the tool in a fresh process, as `sightline ask` would: no Qt application yet.
PROBE = """
import asyncio, json, sys, threading
from app.tools import screenshot
from routing.transcript import ToolCall
args = json.loads(sys.argv[1])
checked = []  # where the PNG was checked: its thread, and whether that was the main one
sniff = screenshot.sniff
def watched(*given, **named):
    checked.append(threading.current_thread() is threading.main_thread())
    return sniff(*given, **named)
screenshot.sniff = watched
result = asyncio.run(screenshot.Screenshot().run(ToolCall("c1", "screenshot", args)))
print(json.dumps({
    "error": result.is_error,
    "text": result.text,
    "pictures": [[p.mime, p.width, p.height] for p in result.pictures],
    "checked_on_main_thread": checked,
}))
"""


def probe(env: dict[str, str], **arguments: object) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(arguments)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def xvfb() -> Iterator[str]:
    """A real X server on a free display number, 1024×768."""
    if shutil.which("Xvfb") is None:
        pytest.skip("needs Xvfb (the xvfb Debian package; scripts/setup installs it)")
    # Xvfb takes the first free number itself (its lock file decides, so tests running
    # side by side never share one) and writes it down the pipe once it listens.
    readable, writable = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(writable), "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        pass_fds=(writable,),
    )
    os.close(writable)
    try:
        with os.fdopen(readable) as said:
            assert select.select([said], [], [], 10)[0], "Xvfb did not start"
            number = said.readline().strip()
        assert number, "Xvfb did not start"
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_the_screen_with_its_size_and_coordinates(xvfb: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env |= {"DISPLAY": xvfb, "QT_QPA_PLATFORM": "xcb"}
    result = probe(env)
    assert not result["error"], result["text"]
    assert result["pictures"] == [["image/png", 1024, 768]]
    # Only the grab is the Qt thread's (the window's): the PNG is made and checked on a
    # worker thread (a 4K screen: ~220 ms the window would otherwise wait through).
    assert result["checked_on_main_thread"] == [False]
    assert "1024×768 pixels" in result["text"]
    assert "x counts pixels right from the left edge" in result["text"]
    assert "y counts pixels down from the top edge" in result["text"]


def test_a_screen_that_does_not_exist(xvfb: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env |= {"DISPLAY": xvfb, "QT_QPA_PLATFORM": "xcb"}
    result = probe(env, screen=3)
    assert result["error"] and "no screen 3" in result["text"]


def test_without_a_display_the_result_says_so() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    result = probe(env)
    assert result["error"] and "no display" in result["text"] and not result["pictures"]
    result = probe(env | {"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":0"})
    assert result["error"] and "no display" in result["text"]
