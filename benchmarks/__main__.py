"""Run every benchmark and print one table: `python -m benchmarks`."""

from __future__ import annotations

import sys

from benchmarks import bench_pictures
from benchmarks.common import table


def main() -> int:
    """Measure, print the table, exit 0."""
    rows = bench_pictures.run()
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
