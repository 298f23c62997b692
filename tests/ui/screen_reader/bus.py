"""A screen reader's view of the real window: Xvfb, a D-Bus session, the AT-SPI bus,
Sightline started on them, and its tree read by the system's pyatspi (atspi_walk.py).

Qt's offscreen platform has no accessibility bridge, so these tests run the window
as a person's desktop would: on X (Xvfb), with accessibility on.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

WALKER = Path(__file__).with_name("atspi_walk.py")
SYSTEM_PYTHON = "/usr/bin/python3"
LAUNCHERS = ("/usr/libexec/at-spi-bus-launcher", "/usr/lib/at-spi2-core/at-spi-bus-launcher")


def missing() -> str:
    """What this machine lacks to read the window over AT-SPI ("" when nothing)."""
    needs = {"Xvfb": shutil.which("Xvfb"), "dbus-launch": shutil.which("dbus-launch")}
    lacking = [name for name, found in needs.items() if not found]
    if not any(Path(p).exists() for p in LAUNCHERS):
        lacking.append("at-spi2-core's at-spi-bus-launcher")
    probe = (
        subprocess.run([SYSTEM_PYTHON, "-c", "import pyatspi"], capture_output=True, check=False)
        if Path(SYSTEM_PYTHON).exists()
        else None
    )
    if probe is None or probe.returncode != 0:
        lacking.append("the system Python's pyatspi (Debian's python3-pyatspi)")
    return ", ".join(lacking)


def _stopped(process: subprocess.Popen[Any]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


class ScreenReader:
    """Sightline's window on a private X display and accessibility bus."""

    def __init__(self, env: dict[str, str], window: subprocess.Popen[Any], log: Path) -> None:
        self.env = env
        self.window = window
        self.log = log

    def _window_state(self) -> str:
        """Whether the window still runs, and the end of what it printed."""
        code = self.window.poll()
        state = "the window is running" if code is None else f"the window exited with {code}"
        printed = self.log.read_text(encoding="utf-8", errors="replace")[-2000:]
        return f"{state}; it printed: {printed or '(nothing)'}"

    def walk(self, *command: str) -> Any:
        """What atspi_walk.py prints for `command`, parsed (None for a command that prints
        nothing)."""
        done = subprocess.run(
            [SYSTEM_PYTHON, str(WALKER), *command],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        if done.returncode != 0:
            raise AssertionError(
                f"the walker failed: {done.stderr[-2000:]}\n{self._window_state()}"
            )
        return json.loads(done.stdout) if done.stdout.strip() else None

    def tree(self) -> dict[str, Any]:
        """The window's accessible tree, as showing."""
        found: dict[str, Any] = self.walk("tree")
        return found

    @contextmanager
    def hearing(
        self, event_type: str, count: int, seconds: float = 60
    ) -> Iterator[Callable[[], list[dict[str, Any]]]]:
        """Listen on the bus for `event_type` (as a screen reader does) from now; the
        function yielded waits until `count` were heard (or `seconds` passed) and returns
        them, each its type, text, detail1 and source's role and name."""
        listener = subprocess.Popen(
            [SYSTEM_PYTHON, str(WALKER), "listen", event_type, str(seconds), str(count)],
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert listener.stdout is not None
            first = listener.stdout.readline().strip()  # once registered with the bus
            if first != "listening":
                raise AssertionError(f"the listener did not start: {first!r}")

            def heard() -> list[dict[str, Any]]:
                out, err = listener.communicate(timeout=seconds + 30)
                if listener.returncode != 0:
                    raise AssertionError(f"the listener failed: {err[-2000:]}")
                found: list[dict[str, Any]] = json.loads(out)
                return found

            yield heard
        finally:
            _stopped(listener)
            for pipe in (listener.stdout, listener.stderr):
                if pipe is not None:
                    pipe.close()

    def until(self, check: Any, seconds: float = 20) -> dict[str, Any]:
        """The tree once `check(tree)` holds (AssertionError with the last tree if never)."""
        deadline = time.monotonic() + seconds
        tree = self.tree()
        while not check(tree):
            if time.monotonic() > deadline:
                raise AssertionError(f"never came: {json.dumps(tree)[:4000]}")
            time.sleep(0.3)
            tree = self.tree()
        return tree


@contextmanager
def window_on_bus(data_dir: Path, config_home: Path) -> Iterator[ScreenReader]:
    """Sightline running on its own Xvfb display and AT-SPI bus, with this data folder."""
    launcher = next(p for p in LAUNCHERS if Path(p).exists())
    with ExitStack() as stack:
        read_fd, write_fd = os.pipe()
        xvfb = subprocess.Popen(
            [
                "Xvfb",
                "-displayfd",
                str(write_fd),
                "-screen",
                "0",
                "1280x800x24",
                "-nolisten",
                "tcp",
            ],
            pass_fds=(write_fd,),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        stack.callback(_stopped, xvfb)
        os.close(write_fd)
        with os.fdopen(read_fd) as displayed:
            display = f":{displayed.readline().strip()}"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DBUS_", "QT_"))}
        env["DISPLAY"] = display
        launched = subprocess.run(
            ["dbus-launch", "--sh-syntax"], env=env, capture_output=True, text=True, check=True
        )
        for line in launched.stdout.splitlines():
            name, _, value = line.partition("=")
            if name in ("DBUS_SESSION_BUS_ADDRESS", "DBUS_SESSION_BUS_PID"):
                env[name] = value.rstrip(";").strip("'")
        stack.callback(os.kill, int(env["DBUS_SESSION_BUS_PID"]), signal.SIGTERM)
        bus = subprocess.Popen(
            [launcher, "--launch-immediately"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        stack.callback(_stopped, bus)
        # The window joins the bus only if the bus answers when it starts.
        subprocess.run([SYSTEM_PYTHON, str(WALKER), "ready"], env=env, timeout=60, check=True)
        env.update(
            QT_QPA_PLATFORM="xcb",
            QT_ACCESSIBILITY="1",
            QT_LINUX_ACCESSIBILITY_ALWAYS_ON="1",
            SIGHTLINE_DATA_DIR=str(data_dir),
            XDG_CONFIG_HOME=str(config_home),
            OLLAMA_HOST="127.0.0.1:9",  # nothing answers there: no server of this machine's
        )
        log = data_dir.parent / "window.log"
        printed = stack.enter_context(log.open("wb"))
        window = subprocess.Popen(
            [sys.executable, "-m", "app"], env=env, stdout=printed, stderr=subprocess.STDOUT
        )
        stack.callback(_stopped, window)
        yield ScreenReader(env, window, log)
