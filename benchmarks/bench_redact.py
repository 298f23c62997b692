"""Redaction: a megabyte of log text with twenty secrets in use, every form of each looked for.

The secrets are what a person's setup registers: provider keys, a URL's user name and
password, MCP and agent `env` values (two of them short flags, redacted only as whole
tokens). The text is log lines as Sightline writes them (Ollama's `/api/chat` among
them, so the key shapes are looked for too), with one key echoed raw, one in base64
inside a JSON body and one in hex. `redact` is what the log and notices get;
`redact_secrets` what the store writes of an answer or a tool result; a single log line
is timed too, and the first call after a change, which builds the search.
"""

from __future__ import annotations

import base64
import random
import string
import time

from benchmarks.common import Row, median_seconds
from routing import secrets

SECRETS = 20
TEXT_BYTES = 1_000_000
LINE = "2025-06-01 10:00:00,123 INFO app.turn.runner: POST /api/chat 200 in 412 ms (1,204 tokens)"


def _register(rng: random.Random) -> list[str]:
    alphabet = string.ascii_letters + string.digits
    keys = ["sk-proj-" + "".join(rng.choices(alphabet, k=40)) for _ in range(8)]
    keys += ["".join(rng.choices(alphabet + "/+=", k=32)) for _ in range(6)]  # env tokens
    keys += ["".join(rng.choices(alphabet, k=12)) for _ in range(3)]  # passwords
    keys += ["alice", "1", "true"]  # a user name; env flags
    secrets._known.clear()  # a registry of these alone
    secrets.register_url_userinfo(f"https://{keys[-3]}:{keys[-4]}@127.0.0.1/v1")
    for key in keys[:SECRETS]:
        secrets.register_secret(key)
    return keys


def _log_text(rng: random.Random, keys: list[str]) -> str:
    words = ["the", "request", "failed", "HTTP", "500", "model", "answered", "in", "12", "ms"]
    lines: list[str] = []
    size = 0
    while size < TEXT_BYTES:
        line = f"{LINE} {' '.join(rng.choices(words, k=8))}"
        lines.append(line)
        size += len(line) + 1
    body = base64.b64encode(f'{{"api_key":"{keys[0]}"}}'.encode()).decode()
    lines[len(lines) // 3] += f" echoed {keys[1]}"
    lines[len(lines) // 2] += f" body {body}"
    lines[2 * len(lines) // 3] += f" hex {keys[2].encode().hex()}"
    return "\n".join(lines)


def run() -> list[Row]:
    """Measure and return the rows."""
    rng = random.Random(29)
    keys = _register(rng)
    text = _log_text(rng, keys)
    started = time.perf_counter()
    secrets.redact(LINE)
    build_ms = (time.perf_counter() - started) * 1000
    redacted = secrets.redact(text)
    assert not any(key in redacted for key in keys[:3]), "a key was left"
    line_us = median_seconds(lambda: [secrets.redact(LINE) for _ in range(1000)], runs=5) * 1000
    note = (
        f"{SECRETS} secrets; the first call after a change builds the search in {build_ms:.1f} ms"
    )
    return [
        Row(
            "redact: 1 MB of log text",
            median_seconds(lambda: secrets.redact(text)) * 1000,
            "ms",
            "",
            note,
        ),
        Row(
            "redact_secrets: 1 MB (what the store writes)",
            median_seconds(lambda: secrets.redact_secrets(text)) * 1000,
            "ms",
        ),
        Row("redact: one log line", line_us, "µs"),
    ]
