"""A start's first send beside its second: `python -m benchmarks.first_send` prints both.

A process of its own, as a person's start is: the window opens on a first run, the
models are listed from a local Ollama-protocol server on loopback (tests/servers/ollama.py,
in this process), and after READING_S (a person reading the window and typing) a question
is sent in a new chat; once it is answered, a second question is sent in another new
chat, the same work (the chat made, titled and listed, then its question). Each is timed
from Enter to the server receiving it. Whatever the first send loads or builds for the
first time shows as its difference from the second. Prints one JSON line:
{"first_s": ..., "second_s": ...}.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

READING_S = 1.5  # from the window showing to the first Enter


def main() -> int:
    """Start, send twice, print the two times."""
    from benchmarks.bench_send import in_session, send_once
    from tests.servers.ollama import FakeOllama

    async def work(session: Any) -> list[float]:
        first = await send_once(session, server, "Question 1?")
        session.controller.new_conversation()
        await asyncio.sleep(READING_S / 5)  # shown, as a person would look before typing
        return [first, await send_once(session, server, "Question 2?")]

    with FakeOllama() as server, tempfile.TemporaryDirectory(prefix="sightline-bench-") as temp:
        # The warm-up begins with the models' listing, as after the first paint.
        first, second = in_session(server, Path(temp), READING_S, work)
    print(json.dumps({"first_s": first, "second_s": second}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
