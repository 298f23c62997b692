"""A start's first send beside its second: `python -m benchmarks.first_send` prints both.

A process of its own, as a person's start is: the window opens on a first run, the
models are listed from a local Ollama-protocol server on loopback (tests/servers/ollama.py,
in this process), and after READING_S (a person reading the window and typing) two
questions are sent in a new chat, each timed from Enter to the server receiving it.
Whatever the first send loads or builds for the first time shows as its difference from
the second. Prints one JSON line: {"first_s": ..., "second_s": ...}.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path

READING_S = 1.5  # from the window showing to the first Enter


def main() -> int:
    """Start, send twice, print the two times."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from app.ui.main_thread_gc import MainThreadCollector
    from app.ui.qt_asyncio import async_generators_finalized_by, new_loop
    from app.ui.session import load_settings, open_session
    from benchmarks.bench_send import send_once
    from benchmarks.bench_window import environment
    from tests.servers.ollama import FakeOllama

    app = QApplication(sys.argv[:1])
    with FakeOllama() as server, tempfile.TemporaryDirectory(prefix="sightline-bench-") as temp:
        provider = (
            f'\n[[providers]]\nid = "ollama"\nkind = "ollama"\nbase_url = "{server.base_url}"\n'
        )
        with environment(Path(temp), provider):
            loop = new_loop(app)
            asyncio.set_event_loop(loop)
            session = open_session(load_settings())

            async def measure() -> list[float]:
                session.show()
                session.start()  # as after the first paint: models listed, the warm-up begun
                collector = MainThreadCollector()
                try:
                    await asyncio.sleep(READING_S)
                    return [await send_once(session, server, f"Question {n}?") for n in (1, 2)]
                finally:
                    collector.stop()
                    await session.aclose()
                    await loop.shutdown_asyncgens()

            try:
                with async_generators_finalized_by(loop):
                    first, second = loop.run_until_complete(measure())
            finally:
                session.window.close()
                asyncio.set_event_loop(None)
                loop.close()
    print(json.dumps({"first_s": first, "second_s": second}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
