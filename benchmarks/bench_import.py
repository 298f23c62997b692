"""`sightline import`: a 200,000-item export brought in, and the memory one huge text takes.

The export is a JSON file in the format `sightline export` writes: 100,000 questions
and 100,000 answers of a few dozen words each, one branch. Its import is timed as a
person runs it (a whole `sightline import` process, its start included) and in this
process by stage (reading and checking the file; writing it in one transaction). The
memory is the peak resident size of `sightline import` bringing in a file that is one
message of 100 MB, against the file's size.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from app.import_json import read_json
from app.importer import add_to_store
from app.store import Store
from benchmarks.common import Row, python_env, run_process

ITEMS = 200_000
HUGE_TEXT = 100_000_000  # characters of the one message of the memory figure


def export_document(items: list[Any]) -> dict[str, Any]:
    """An export of these items, as `sightline export` writes one."""
    return {
        "format": "sightline.conversation",
        "version": 2,
        "conversation": {
            "id": "0" * 32,
            "title": "A long chat",
            "model": "ollama:llama3.2:3b",
            "created_at": 1.0,
            "updated_at": 2.0,
        },
        "items": items,
        "pictures": [],
        "pdfs": [],
    }


def message(number: int, role: str, text: str) -> dict[str, Any]:
    """One item of the export, following the one before it."""
    return {
        "id": number,
        "parent": number - 1 if number > 1 else None,
        "shown": True,
        "type": "message",
        "created_at": 1000.0 + number,
        "role": role,
        "model": "" if role == "user" else "ollama:llama3.2:3b",
        "status": "complete",
        "parts": [{"type": "text", "text": text}],
    }


def _write_export(path: Path, items: Iterator[dict[str, Any]]) -> Path:
    """An export of `items`, written an item at a time (this process stays small: a child
    started from a large one is reported as large as its parent was)."""
    head, tail = json.dumps(export_document([0])).split("[0]")
    with path.open("w", encoding="utf-8") as out:
        out.write(head + "[")
        for number, item in enumerate(items):
            out.write((", " if number else "") + json.dumps(item))
        out.write("]" + tail)
    return path


def long_export(path: Path) -> Path:
    """An export of ITEMS items, alternating questions and answers."""
    return _write_export(
        path,
        (
            message(n, "user", f"Question {n}: what does the chart of sales show?")
            if n % 2
            else message(n, "assistant", f"Answer {n}: " + "the model sees a chart of sales " * 6)
            for n in range(1, ITEMS + 1)
        ),
    )


def huge_export(path: Path) -> Path:
    """An export of one message of HUGE_TEXT characters."""
    return _write_export(path, iter([message(1, "user", "Look: " + "x" * (HUGE_TEXT - 6))]))


# `sightline import` as the command line runs it, then its own peak resident memory: the
# high-water mark of this process's memory alone (ru_maxrss would count the parent it
# was started from).
_MEASURED = """
import resource, sys
from app.cli import main
status = main(sys.argv[1:])
try:
    with open("/proc/self/status") as facts:
        peak = next(int(l.split()[1]) for l in facts if l.startswith("VmHWM:"))
except OSError:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(f"peak_kib={peak}", file=sys.stderr)
sys.exit(status)
"""


def _sightline_import(folder: Path, export: Path) -> tuple[float, float, str]:
    """`sightline import` run whole: its wall time, peak memory (MiB), and any failure."""
    folder.mkdir()
    config = folder / "config.toml"
    config.write_text("discover_local = false\n", encoding="utf-8")
    env = python_env(SIGHTLINE_CONFIG=str(config), SIGHTLINE_DATA_DIR=str(folder / "data"))
    command = [sys.executable, "-c", _MEASURED, "import", str(export)]
    done = run_process(command, env, timeout=600)
    lines = done.stderr.strip().splitlines()
    peak = int(lines[-1].removeprefix("peak_kib=")) / 1024 if lines else float("nan")
    failure = "" if done.returncode == 0 else (done.stderr.strip() or "it failed")[-200:]
    return done.wall_s, peak, failure


def run() -> list[Row]:
    """Measure and return the rows."""
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        huge = huge_export(folder / "huge.json")
        huge_mb = huge.stat().st_size / 1e6
        _, huge_rss_mib, huge_failure = _sightline_import(folder / "huge", huge)
        huge.unlink()
        export = long_export(folder / "long.json")
        size_mb = export.stat().st_size / 1e6
        wall_s, rss_mib, failure = _sightline_import(folder / "whole", export)
        started = time.perf_counter()
        exported = read_json(export)
        read_s = time.perf_counter() - started
        with Store.open(folder / "staged") as store:
            started = time.perf_counter()
            add_to_store(store, exported)
            write_s = time.perf_counter() - started
    rows = [
        Row(
            f"sightline import of a {ITEMS:,}-item export",
            ITEMS / wall_s,
            "items/s",
            "",
            failure
            or f"{wall_s:.1f} s for the {size_mb:.0f} MB file, the process's start included, "
            f"peak {rss_mib:.0f} MiB; in process: reading and checking {read_s:.1f} s, "
            f"writing in one transaction {write_s:.1f} s",
        ),
        Row(
            f"sightline import of one {HUGE_TEXT // 1_000_000} MB message: peak memory",
            huge_rss_mib * 1.048576 / huge_mb,
            "× the file",
            "",
            huge_failure or f"{huge_rss_mib:.0f} MiB at its peak for the {huge_mb:.0f} MB file",
        ),
    ]
    return rows
