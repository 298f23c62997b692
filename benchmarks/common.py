"""Timing helpers and the table every benchmark prints."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


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


def table(rows: list[Row]) -> str:
    """The rows as a Markdown table (pasted as is into the README)."""
    lines = ["| benchmark | median | goal | note |", "| --- | ---: | --- | --- |"]
    for row in rows:
        value = f"{row.value:.3g} {row.unit}".strip()
        lines.append(f"| {row.name} | {value} | {row.goal} | {row.note} |")
    return "\n".join(lines)
