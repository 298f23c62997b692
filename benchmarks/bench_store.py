"""The store: opening a 2,000-message chat, and appending one streamed token.

The chat is a real SQLite file of 1,000 questions and 1,000 answers of a few
hundred words each. Opening it is timed in the store (`Store.items`), and in the
window's model and view offscreen (a separate process, so Qt stays out of this
one). A token append is timed on a message that is empty, 100 KB and 1 MB long, its share
of the batch the store writes included: each batch is one small row until the answer
ends, so the three should match;
folding the deltas into the message when it ends is timed for 1 MB.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from app.store import Store
from benchmarks.common import Row, median_seconds, python_env, run_process
from routing.transcript import Message, MessageStatus, TextPart, user_message

MESSAGES = 2_000
QT_RUNS = 3
TOKEN = "word "  # about one token
APPENDS = 200  # batches per measured size
BATCH = 5  # tokens in 50 ms (app/store/streamed_words.py) at 100 tokens a second


def _words(rng: random.Random, count: int) -> str:
    vocabulary = ["the", "picture", "model", "sees", "a", "chart", "of", "sales", "and", "code"]
    return " ".join(rng.choice(vocabulary) for _ in range(count))


def long_chat(folder: Path) -> str:
    """A chat of MESSAGES messages, written as turns would write them; returns its id."""
    rng = random.Random(11)
    with Store.open(folder) as store:
        conversation = store.conversations.create()
        for n in range(MESSAGES // 2):
            store.add_message(conversation, user_message(f"Question {n}: {_words(rng, 30)}?"))
            answer = f"Answer {n}.\n\n{_words(rng, 250)}\n\n```python\nprint({n})\n```\n"
            store.add_message(
                conversation,
                Message(
                    "assistant", (TextPart(answer),), "ollama:llama3.2:3b", MessageStatus.COMPLETE
                ),
            )
    return conversation


def append_seconds(store: Store, size: int) -> float:
    """A token's time on a message already `size` characters long, as a model streaming
    100 tokens a second has it: its append, and its share of the batch the store writes
    every 50 ms (BATCH tokens). Median over APPENDS batches."""
    conversation = store.conversations.create()
    item = store.begin_assistant(conversation, "ollama:llama3.2:3b")
    if size:
        store.append_text(item.id, "x" * size)  # one delta that big: the same rows to pass
    times = []
    for _ in range(APPENDS):
        started = time.perf_counter()
        for _ in range(BATCH):
            store.append_text(item.id, TOKEN)
        store.save_held_words()
        times.append((time.perf_counter() - started) / BATCH)
    return statistics.median(times)


def _qt_open(folder: Path, conversation: str) -> dict[str, float] | str:
    """The model and view timings from a separate offscreen process, or why there are none."""
    runs = []
    for _ in range(QT_RUNS):
        done = run_process(
            [sys.executable, "-m", "benchmarks.qt_long_chat", str(folder), conversation],
            python_env(),
        )
        if done.returncode != 0:
            return done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "it failed"
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return {key: statistics.median(run[key] for run in runs) for key in ("model_s", "shown_s")}


def run() -> list[Row]:
    """Measure and return the rows."""
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        conversation = long_chat(folder)
        with Store.open(folder) as store:
            items_s = median_seconds(lambda: store.items(conversation), runs=5)
            open_s = median_seconds(lambda: Store.open(folder).close(), runs=5)
            appends = {size: append_seconds(store, size) for size in (0, 100_000, 1_000_000)}
            fold_s = _fold_seconds(store)
        size_mb = (folder / Store.DB_NAME).stat().st_size / 1e6
        qt = _qt_open(folder, conversation)
    rows = [
        Row(
            f"open a {MESSAGES:,}-message chat: Store.items",
            items_s * 1000,
            "ms",
            "",
            f"Store.open alone {open_s * 1000:.1f} ms; the file is {size_mb:.1f} MB",
        )
    ]
    if isinstance(qt, dict):
        rows.append(
            Row(
                f"open a {MESSAGES:,}-message chat: ConversationModel + view painted",
                qt["shown_s"] * 1000,
                "ms",
                "",
                f"model.set_items alone {qt['model_s'] * 1000:.1f} ms; offscreen, "
                f"scrolled to the newest message; {QT_RUNS} runs",
            )
        )
    else:
        rows.append(
            Row(
                "open a long chat in the Qt model and view",
                float("nan"),
                "",
                "",
                f"not measured: {qt}",
            )
        )
    empty, mid, big = appends[0], appends[100_000], appends[1_000_000]
    rows.append(
        Row(
            "per-token append (Store.append_text, a batch written each 5), fresh message",
            empty * 1e6,
            "µs",
            "",
            f"on a 100 KB message {mid * 1e6:.0f} µs, on a 1 MB one {big * 1e6:.0f} µs "
            f"({big / empty:.2f}× at 1 MB); folding a 1 MB answer of 20,000 deltas (4,000 "
            f"batches) when it ends: {fold_s * 1000:.1f} ms",
        )
    )
    return rows


def _fold_seconds(store: Store) -> float:
    """How long ending a 1 MB answer streamed as 20,000 deltas takes (folding its rows, a
    batch of BATCH deltas each)."""
    conversation = store.conversations.create()
    item = store.begin_assistant(conversation, "ollama:llama3.2:3b")
    for n in range(20_000):
        store.append_text(item.id, "x" * 50)
        if n % BATCH == BATCH - 1:
            store.save_held_words()
    started = time.perf_counter()
    store.finish_message(item.id, MessageStatus.COMPLETE)
    return time.perf_counter() - started
