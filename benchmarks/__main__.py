"""Run every benchmark and print one table: `python -m benchmarks [NAME...]`.

NAME picks modules (startup, instructions, ask, store, import, pictures, redact, describer,
pdf, window, send, search, chats, sight, agent, wires, context); none runs all.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from benchmarks import (
    bench_agent,
    bench_ask,
    bench_chats,
    bench_context,
    bench_describer,
    bench_import,
    bench_pdf,
    bench_pictures,
    bench_redact,
    bench_search,
    bench_send,
    bench_sight_check,
    bench_startup,
    bench_startup_instructions,
    bench_store,
    bench_window,
    bench_wires,
)
from benchmarks.common import Row, table

BENCHMARKS: dict[str, Callable[[], list[Row]]] = {
    "startup": bench_startup.run,
    "instructions": bench_startup_instructions.run,
    "ask": bench_ask.run,
    "store": bench_store.run,
    "import": bench_import.run,
    "pictures": bench_pictures.run,
    "redact": bench_redact.run,
    "describer": bench_describer.run,
    "pdf": bench_pdf.run,
    "window": bench_window.run,
    "send": bench_send.run,
    "search": bench_search.run,
    "chats": bench_chats.run,
    "sight": bench_sight_check.run,
    "agent": bench_agent.run,
    "context": bench_context.run,
    "wires": bench_wires.run,
}


def main(argv: list[str]) -> int:
    """Measure, print the table, exit 0 (2 for an unknown name)."""
    unknown = [name for name in argv if name not in BENCHMARKS]
    if unknown:
        print(f"unknown benchmark {', '.join(unknown)}; there are: {', '.join(BENCHMARKS)}")
        return 2
    started = time.perf_counter()
    rows: list[Row] = []
    for name in argv or list(BENCHMARKS):
        rows += BENCHMARKS[name]()
    print(table(rows))
    print(f"\n{len(rows)} figures in {time.perf_counter() - started:.0f} s, medians of one run.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
