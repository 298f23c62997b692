"""One `sightline ask` turn against a loopback Ollama stream, against a plain httpx script.

Both are whole processes, alternately, against the same loopback Ollama-protocol
server streaming the same answer: the plain script posts the request `ask` ends up
sending and prints the streamed words; `ask` also reads its config, lists the
provider's models, and stores the turn.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from benchmarks.common import Paired, Row, median, platform_folders_env, run_process
from tests.servers.ollama import FakeOllama, Reply

RUNS = 7
MODEL = "llama3.2:3b"
ANSWER = " ".join(f"word{n}" for n in range(400))  # about 500 tokens

PLAIN = """
import json, sys
import httpx
body = {"model": sys.argv[2], "messages": [{"role": "user", "content": sys.argv[3]}],
        "stream": True}
with httpx.Client(trust_env=False) as client:
    with client.stream("POST", sys.argv[1] + "/api/chat", json=body, timeout=60) as response:
        for line in response.iter_lines():
            if line.strip():
                chunk = json.loads(line)
                sys.stdout.write(chunk.get("message", {}).get("content", ""))
                if chunk.get("done"):
                    break
print()
"""


def run() -> list[Row]:
    """Measure and return the rows."""
    with FakeOllama() as server, tempfile.TemporaryDirectory() as folder:
        env = platform_folders_env(
            Path(folder),
            "discover_local = false\n\n[[providers]]\n"
            f'id = "ollama"\nkind = "ollama"\nbase_url = "{server.base_url}"\n',
        )
        commands = {
            "ask": [sys.executable, "-m", "app", "ask", "--model", f"ollama:{MODEL}", "Go on."],
            "plain": [sys.executable, "-c", PLAIN, server.base_url, MODEL, "Go on."],
        }
        walls: dict[str, list[float]] = {name: [] for name in commands}
        for run in range(RUNS + 1):  # the first of each is a warm-up
            for name, command in commands.items():
                server.enqueue(Reply(text=ANSWER, chunk_chars=4))
                done = run_process(command, env)
                if done.returncode != 0 or done.stdout.strip() != ANSWER:
                    raise RuntimeError(f"{name} failed: {done.stderr.strip()[-500:]}")
                if run:
                    walls[name].append(done.wall_s)
    ask, plain = median(walls["ask"]), median(walls["plain"])
    return [
        Row(
            "`sightline ask`, one streamed turn, whole process",
            ask * 1000,
            "ms",
            "≤ 1.3× plain httpx",
            f"plain httpx script: {plain * 1000:.0f} ms; "
            f"{Paired(walls['ask'], walls['plain']).ratios()}; "
            f"{len(ANSWER) // 4} chunks over loopback; {RUNS} runs each",
        )
    ]
