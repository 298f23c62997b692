"""Start-up: a shown window against a bare PySide6 one, its memory, and the installed size.

Both windows run as whole processes, alternately, in the same run: Sightline's
`python -m app --smoke` and `python -m benchmarks.bare_window` print the same
JSON timings, their paint among them on the monotonic clock every process shares;
start → first paint is from this benchmark's reading of that clock just before it
started the process. The wall time covers interpreter start to exit. Both start from
bytecode, as an installed copy does (pip compiles it at install, the frozen
build ships it): the unmeasured first run writes it to a cache of the run's own,
whatever PYTHONDONTWRITEBYTECODE says, so Sightline is not timed compiling its
own modules at every start (40-70 ms here), which the bare window, having none,
never does. Sightline starts three ways: with no chats; as a person returns, with
the chat they left open shown again in the first frame (its rows' modules load and its
newest page is laid out before that paint); and with KEPT_CHATS chats kept, all listed in
the sidebar. The size is what Sightline's runtime dependencies (from pyproject.toml,
followed through their own requirements) occupy in this venv's site-packages.
"""

from __future__ import annotations

import json
import math
import re
import sys
import tempfile
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

from benchmarks.common import ROOT, Paired, Row, median, platform_folders_env, run_process

RUNS = 7
RETURNING_ITEMS = 100  # the chat a returning person left open (questions, answers, notices)
KEPT_CHATS = 5_000  # the sidebar of a person who keeps every chat: years of them


def _returning(data: Path) -> None:
    """A data folder as a returning person's: the chat left open last time, RETURNING_ITEMS
    long, is opened again before the first paint (as `restore_state` does)."""
    from benchmarks.bench_window import fill

    conversation = fill(data, RETURNING_ITEMS)
    # The window's own file (app/ui/window_state.py), as a run that closed on that chat left it.
    (data / "window.ini").write_text(f"[chat]\nlast={conversation}\n", encoding="utf-8")


def keep_chats(data: Path, count: int) -> None:
    """A data folder of `count` chats, a question each, none left open (added in one
    transaction): the sidebar lists them all."""
    from app.store import Store
    from routing.transcript import user_message

    with Store.open(data) as store, store.together():
        for n in range(count):
            chat = store.conversations.create(title=f"Chat {n}")
            store.add_message(chat, user_message(f"Question {n}?"))


def start_env(home: Path) -> dict[str, str]:
    """A child's environment for a first start in `home`: no discovery, its own data and
    settings where a person's are, its own bytecode (written by a first, unmeasured run)."""
    return platform_folders_env(
        home, "discover_local = false\n", PYTHONPYCACHEPREFIX=str(home / "bytecode")
    )


def _timed_windows(runs: int) -> dict[str, dict[str, list[float]]]:
    """Per window: first paint, paint since process start, wall time and peak memory per run."""
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        env = start_env(home)
        _returning(home / "returning")
        keep_chats(home / "keeping", KEPT_CHATS)
        smoke = [sys.executable, "-m", "app", "--smoke"]
        commands = {
            "sightline": (smoke, env),
            "returning": (smoke, env | {"SIGHTLINE_DATA_DIR": str(home / "returning")}),
            "keeping": (smoke, env | {"SIGHTLINE_DATA_DIR": str(home / "keeping")}),
            "bare": ([sys.executable, "-m", "benchmarks.bare_window"], env),
            "bare_qt": ([sys.executable, "-m", "benchmarks.bare_window", "--qt-namespace"], env),
        }
        found: dict[str, dict[str, list[float]]] = {
            name: {"paint": [], "since_start": [], "wall": [], "rss": []} for name in commands
        }
        # The first run of each warms the disk cache and writes the bytecode, unmeasured.
        for run in range(runs + 1):
            for name, (command, command_env) in commands.items():
                done = run_process(command, command_env)
                if done.returncode != 0:
                    raise RuntimeError(f"{name} failed: {done.stderr.strip()[-500:]}")
                if run == 0:
                    continue
                timings = json.loads(done.stdout.strip().splitlines()[-1])
                found[name]["paint"].append(timings["first_paint_s"])
                # From just before the process was started to its paint, both read on the
                # monotonic clock every process shares: to the microsecond, where the
                # process's age in /proc counts in 10 ms clock ticks.
                found[name]["since_start"].append(
                    timings["painted_monotonic_s"] - done.started_monotonic_s
                )
                found[name]["wall"].append(done.wall_s)
                # Only the process's own reading: a child's `wait4` figure starts from
                # this benchmark's size at the fork, so it can't tell the two apart.
                if "peak_rss_mib" in timings:
                    found[name]["rss"].append(timings["peak_rss_mib"])
    return found


def _distribution_name(requirement: str) -> str | None:
    """The distribution a requirement names, or None when its marker rules it out here."""
    parsed = Requirement(requirement)
    if parsed.marker is not None and not parsed.marker.evaluate({"extra": ""}):
        return None
    return parsed.name


def runtime_distributions() -> set[str]:
    """Sightline's runtime dependencies from pyproject.toml and everything they require."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pending = [n for r in project["dependencies"] if (n := _distribution_name(r)) is not None]
    seen: set[str] = set()
    while pending:
        name = re.sub(r"[-_.]+", "-", pending.pop()).lower()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.distribution(name).requires or []
        except metadata.PackageNotFoundError:
            continue
        pending += [n for r in requires if (n := _distribution_name(r)) is not None]
    return seen


def installed_mib(names: set[str]) -> tuple[float, int]:
    """Bytes on disk of these distributions' files (from their RECORDs), in MiB, and how many."""
    total, counted = 0, 0
    for name in names:
        try:
            files = metadata.distribution(name).files or []
        except metadata.PackageNotFoundError:
            continue
        counted += 1
        for file in files:
            path = Path(str(file.locate()))
            if path.is_file():
                total += path.stat().st_size
    return total / 2**20, counted


def _memory_row(ours: list[float], bare: list[float]) -> Row:
    name, goal = "memory at first paint (peak RSS, read by the process itself)", "≤ bare + 16 MiB"
    if not ours or not bare:  # no /proc/self/status here
        return Row(name, math.nan, "MiB", goal, "unknown: this system doesn't say a process's peak")
    rss, bare_rss = median(ours), median(bare)
    return Row(
        name,
        rss,
        "MiB",
        goal,
        f"bare window: {bare_rss:.0f} MiB; Sightline adds {rss - bare_rss:.0f} MiB",
    )


def run() -> list[Row]:
    """Measure and return the rows."""
    found = _timed_windows(RUNS)
    ours, bare, bare_qt = found["sightline"], found["bare"], found["bare_qt"]
    back, keeping = found["returning"]["since_start"], found["keeping"]["since_start"]
    since, bare_since = median(ours["since_start"]), median(bare["since_start"])
    wall, bare_wall = median(ours["wall"]), median(bare["wall"])
    size, counted = installed_mib(runtime_distributions())
    return [
        Row(
            "cold start to a shown window (process start → first paint)",
            since * 1000,
            "ms",
            "≤ 1.5× bare",
            f"bare PySide6 window: {bare_since * 1000:.0f} ms; "
            f"{Paired(ours['since_start'], bare['since_start']).ratios()}; "
            f"`first_paint_s` {median(ours['paint']) * 1000:.0f} vs "
            f"{median(bare['paint']) * 1000:.0f} ms; {RUNS} runs each, warm disk cache, "
            "from bytecode",
        ),
        Row(
            "the bare window using one flag of Qt's namespace (→ first paint)",
            median(bare_qt["since_start"]) * 1000,
            "ms",
            "report",
            f"the bare window without it: {bare_since * 1000:.0f} ms; "
            f"{Paired(bare_qt['since_start'], bare['since_start']).ratios()}; "
            f"Sightline to it: {Paired(ours['since_start'], bare_qt['since_start']).ratios()}",
        ),
        Row(
            f"a returning start: the chat left open ({RETURNING_ITEMS} items) shown → first paint",
            median(back) * 1000,
            "ms",
            "report",
            f"over the first start: {Paired(back, ours['since_start']).ratios()}; "
            f"to the bare window: {Paired(back, bare['since_start']).ratios()}",
        ),
        Row(
            f"a start with {KEPT_CHATS:,} chats kept, the sidebar listing them → first paint",
            median(keeping) * 1000,
            "ms",
            "report",
            f"over the first start: {Paired(keeping, ours['since_start']).ratios()}",
        ),
        Row(
            "`sightline --smoke` whole process (start → exit)",
            wall * 1000,
            "ms",
            "report",
            f"bare window process: {bare_wall * 1000:.0f} ms; "
            f"{Paired(ours['wall'], bare['wall']).ratios()}",
        ),
        _memory_row(ours["rss"], bare["rss"]),
        Row(
            "installed size of the runtime dependencies (site-packages)",
            size,
            "MiB",
            "≤ 400 MB",
            f"{counted} distributions from pyproject.toml's dependencies and theirs "
            f"({size * 2**20 / 1e6:.0f} MB)",
        ),
    ]
