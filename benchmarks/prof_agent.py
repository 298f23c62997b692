from __future__ import annotations

import asyncio
import cProfile
import pstats
import sys
import tempfile
from pathlib import Path

from app.store import Store
from app.turn.acp.process import skip_untraced_spans
from benchmarks.bench_agent import _Sightline


async def main(folder: Path) -> None:
    skip_untraced_spans()
    with Store.open(folder / "data") as store:
        s = _Sightline(store, sys.argv[1], folder)
        try:
            for _ in range(5):
                await s.turn()
            p = cProfile.Profile()
            p.enable()
            for _ in range(30):
                await s.turn()
            p.disable()
        finally:
            await s.close()
    st = pstats.Stats(p)
    st.sort_stats("cumulative").print_stats("work/main/app", 45)


with tempfile.TemporaryDirectory() as t:
    asyncio.run(main(Path(t)))
