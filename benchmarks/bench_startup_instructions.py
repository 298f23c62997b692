"""Start-up counted in instructions: Sightline's window and the bare one, each to its first
paint, under valgrind's callgrind.

A start's wall time here moves 15-20 % between this machine's quick and slow stretches
(the bare window shows in 88 ms in one, 106 ms in another), so a change worth half a
millisecond can't be told from noise by timing it. The instructions a process runs to
its first paint repeat to within 0.1 % from run to run: a change of a few tenths of a
millisecond shows. Each process is ended as it notes its paint (a probe ends it there,
where the timed start-up stops), so neither counts what follows it (Sightline's menu
entries and shortcuts, added just after, and its asyncio; the bare window's exit). Sightline is also
counted to three earlier points, which split its count: Python, PySide6 and the
QApplication; its modules (what the session imports); the window's build (settings, log,
store, widgets, and the modules they import as they are made); the paint.

Both counts also say how much of them PySide6 spent building enums: shiboken makes a
class's enums, as Python `enum` classes member by member, the first time Python uses the
class, and the ~90 enums of Qt's own namespace (`Qt`) all at once with its first flag. A real
window uses many classes the bare one never touches; the row says the ratio of the rest.

Valgrind runs a process about 50 times slower, long enough for Sightline's collector
(app/ui/main_thread_gc.py, a 500 ms timer) to collect once before the paint, which it
never does at full speed: explicit `gc.collect()` calls are left out of both counts.
Without valgrind the row says so instead of a figure.
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

from benchmarks.bench_startup import start_env
from benchmarks.common import Row, run_process

# Ends Sightline's process at argv[1]'s point: "qt" (QApplication made), "modules" (its
# modules imported), "built" (the window built, not yet shown), "painted".
SIGHTLINE_PROBE = """
import os, sys
stop = sys.argv[1]
sys.argv[1:] = ["--smoke"]
from app.ui import app as window_app

def end(*_args):
    sys.stdout.flush()
    os._exit(0)

if stop in ("qt", "modules"):
    def open_and_run(*_args):
        if stop == "modules":
            import app.logs, app.ui.session
        end()
    window_app._open_and_run = open_and_run
else:
    paint_first = window_app._paint_first
    def painted(session, timeout_s):
        if stop == "painted":
            # Ends as the session notes the first paint (connected after it), where the
            # timed start-up stops and the bare window's probe ends.
            session.window.first_painted.connect(end)
            paint_first(session, timeout_s)
        end()
    window_app._paint_first = painted
from app.cli import main
sys.exit(main())
"""

# Ends the bare window's process as it notes its first paint.
BARE_PROBE = """
import os, sys
from benchmarks import bare_window

def painted(window):
    sys.stdout.flush()
    os._exit(0)

bare_window.Window.first_paint_done = painted
sys.exit(bare_window.main())
"""

# Where Sightline's count is split, in order, and what each step between them runs.
_STOPS = {
    "qt": "Python, PySide6 and the QApplication",
    "modules": "its modules",
    "built": "the window's build",
    "painted": "the paint",
}
_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")
# Where shiboken builds a class's enums, as Python `enum` classes member by member, the
# first time Python touches the class (one function per integer type of the values).
_ENUMS = "Shiboken::Enum::createPythonEnum("
_INCLUSIVE = re.compile(r"^\s*([\d,]+) \(")


class Count(NamedTuple):
    """A process's instructions to its end, and how many of them built PySide6's enums."""

    total: int
    enums: int


def counted(script: str, *args: str, env: dict[str, str]) -> Count:
    """The instructions `python -c script args` runs to its end, by callgrind."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        command = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            "--toggle-collect=gc_collect",  # explicit collections (the module's docstring)
            "--collect-atstart=yes",  # after it: --toggle-collect turns counting off at start
            sys.executable,
            "-c",
            script,
            *args,
        ]
        done = run_process(command, env, timeout=600)
        found = _COLLECTED.search(done.stderr)
        if done.returncode != 0 or found is None:
            raise RuntimeError(f"callgrind failed: {done.stderr.strip()[-500:]}")
        return Count(int(found.group(1)), _enum_instructions(out))


def _enum_instructions(out: Path) -> int:
    """The instructions spent in shiboken's enum building, called from anywhere (the
    annotator's inclusive costs; a recursive entry, marked `'2`, is counted once)."""
    annotated = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(out)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    total = 0
    for line in annotated.splitlines():
        cost = _INCLUSIVE.match(line)
        if cost and _ENUMS in line and "'" not in line.split(_ENUMS)[1].split("[")[0]:
            total += int(cost.group(1).replace(",", ""))
    return total


def run() -> list[Row]:
    """Count and return the row."""
    name, goal = "instructions to first paint, Sightline vs the bare window (callgrind)", "report"
    if shutil.which("valgrind") is None:
        return [Row(name, math.nan, "G", goal, "not counted: valgrind is not installed")]
    with tempfile.TemporaryDirectory() as folder:
        env = start_env(Path(folder))
        # Unmeasured: writes the bytecode both start from, as the start-up benchmark does.
        run_process([sys.executable, "-c", SIGHTLINE_PROBE, "painted"], env)
        run_process([sys.executable, "-c", BARE_PROBE], env)
        bare = counted(BARE_PROBE, env=env)
        points = {stop: counted(SIGHTLINE_PROBE, stop, env=env) for stop in _STOPS}
    ours = points["painted"]
    steps = [point.total for point in points.values()]
    split = "; ".join(
        f"{words} {(count - before) / 1e6:.0f} M"
        for words, count, before in zip(_STOPS.values(), steps, [0, *steps[:-1]], strict=True)
    )
    without = (ours.total - ours.enums) / (bare.total - bare.enums)
    return [
        Row(
            name,
            ours.total / 1e9,
            "G",
            goal,
            f"bare window: {bare.total / 1e6:.0f} M; ratio {ours.total / bare.total:.2f}×; "
            f"Sightline's: {split}; PySide6 building enums (each class's, the first time "
            f"Python uses it): Sightline {ours.enums / 1e6:.0f} M, the bare window "
            f"{bare.enums / 1e6:.0f} M, the rest in ratio {without:.2f}×; "
            "one count each (a count repeats to within 0.1 %)",
        )
    ]
