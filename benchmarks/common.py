"""Timing helpers and the table every benchmark prints."""

from __future__ import annotations

import atexit
import functools
import math
import os
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


@contextmanager
def window_ticks() -> Iterator[list[float]]:
    """The gaps between ticks of a 1 ms timer on the window's thread while the block runs:
    the longest is how long that thread was held (Qt's events must be running)."""
    from PySide6.QtCore import QTimer

    gaps, last = [0.0], [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setInterval(1)
    timer.timeout.connect(tick)
    timer.start()
    try:
        yield gaps
    finally:
        timer.stop()


@dataclass(frozen=True)
class Row:
    """One measured figure, with its goal when the issue sets one."""

    name: str
    value: float
    unit: str
    goal: str = ""
    note: str = ""


def median_seconds(action: Callable[[], object], runs: int = 7, warmup: int = 1) -> float:
    """The median wall time of `action` over `runs` runs, after `warmup` unmeasured ones."""
    for _ in range(warmup):
        action()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


@dataclass(frozen=True)
class Paired:
    """Times of an action and of its floor, run alternately in the same run."""

    ours: list[float]
    floor: list[float]

    def ratios(self) -> str:
        """The ratio to the floor, by the minimums and by the medians."""
        by_min = min(self.ours) / min(self.floor)
        by_median = statistics.median(self.ours) / statistics.median(self.floor)
        return f"ratio {by_min:.2f}× by minimum, {by_median:.2f}× by median"


def interleaved(
    action: Callable[[], object], floor: Callable[[], object], runs: int = 7, warmup: int = 1
) -> Paired:
    """Time `action` and `floor` alternately, `runs` times each after `warmup` unmeasured rounds.

    Alternating puts both under the same load, so their ratio holds when the
    machine's speed drifts between runs.
    """
    ours: list[float] = []
    floors: list[float] = []
    for round_ in range(warmup + runs):
        for timed, times in ((action, ours), (floor, floors)):
            started = time.perf_counter()
            timed()
            if round_ >= warmup:
                times.append(time.perf_counter() - started)
    return Paired(ours, floors)


def table(rows: list[Row]) -> str:
    """The rows as a Markdown table (pasted as is into the README)."""
    lines = ["| benchmark | median | goal | note |", "| --- | ---: | --- | --- |"]
    for row in rows:
        value = "unknown" if math.isnan(row.value) else f"{row.value:.3g} {row.unit}".strip()
        lines.append(f"| {row.name} | {value} | {row.goal} | {row.note} |")
    return "\n".join(lines)


ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Finished:
    """A whole process, measured from its start to its reaping."""

    wall_s: float
    stdout: str
    stderr: str
    returncode: int
    max_rss_mib: float  # the process's own peak resident memory (not its children's)
    started_monotonic_s: float  # `time.monotonic()` just before the process was started


def run_process(
    args: list[str], env: dict[str, str] | None = None, timeout: float = 120.0
) -> Finished:
    """Run a process to its end from the repository root; wall time and peak memory."""
    with tempfile.TemporaryFile() as err:
        started, started_monotonic = time.perf_counter(), time.monotonic()
        process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=err, env=env, cwd=ROOT)
        killer = threading.Timer(timeout, process.kill)
        killer.start()
        try:
            assert process.stdout is not None
            out = process.stdout.read()
            # wait4, not wait: it also gives this child's own rusage (its peak RSS).
            _, status, usage = os.wait4(process.pid, 0)
            wall = time.perf_counter() - started
        finally:
            killer.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)
        process.stdout.close()
        err.seek(0)
        errors = err.read().decode("utf-8", "replace")
    return Finished(
        wall,
        out.decode("utf-8", "replace"),
        errors,
        process.returncode,
        usage.ru_maxrss / 1024,  # KiB on Linux
        started_monotonic,
    )


def python_env(**extra: str) -> dict[str, str]:
    """This environment for a child Python, offscreen, with `extra` set.

    Children run from bytecode, as an installed Sightline does: it is written once
    to a cache of this run's own, whatever PYTHONDONTWRITEBYTECODE says, so no
    figure includes compiling Sightline's modules (which a plain script, having
    none, never pays).
    """
    drop = ("OLLAMA_HOST", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    env["PYTHONPYCACHEPREFIX"] = _bytecode_cache()
    return env | extra


def platform_folders_env(home: Path, config: str, **extra: str) -> dict[str, str]:
    """`python_env` for a child whose settings (`config`, written) and data are where a
    person's are: the platform's folders, here under `home`. Not named by SIGHTLINE_CONFIG
    and SIGHTLINE_DATA_DIR, which would spare it platformdirs, which finds a person's (10.7 M
    instructions of a start, counted)."""
    from app.paths import APP_NAME

    written = home / "xdg-config" / APP_NAME / "config.toml"
    written.parent.mkdir(parents=True, exist_ok=True)
    written.write_text(config, encoding="utf-8")
    env = python_env(
        XDG_CONFIG_HOME=str(home / "xdg-config"),
        XDG_DATA_HOME=str(home / "xdg-data"),
        XDG_CACHE_HOME=str(home / "xdg-cache"),
        **extra,
    )
    # Set where the benchmarks run, these would send the child to that person's own.
    for named in ("SIGHTLINE_CONFIG", "SIGHTLINE_DATA_DIR"):
        if named not in extra:
            env.pop(named, None)
    return env


@functools.cache
def _bytecode_cache() -> str:
    folder = tempfile.mkdtemp(prefix="sightline-bench-bytecode-")
    atexit.register(shutil.rmtree, folder, True)
    return folder


def median(values: list[float]) -> float:
    """The median of measured values."""
    return statistics.median(values)
