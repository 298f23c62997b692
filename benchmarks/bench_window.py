"""The conversation view: opening a 5,000-message chat or one of 4K screenshots, opening a
4K screenshot in the picture viewer, and what each streamed token costs.

Measured offscreen with the real store, window and controller (`app.ui.session`):
the store is filled on disk first, then the window opens the conversation as
a click in the sidebar would. Each streamed token is appended, flushed at once
(rather than every few frames, as the model does while streaming) and painted,
so the figure is the whole per-token path at its most frequent.
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks.common import Paired, Row

MESSAGES = 5000
SMALL = 10
ROUNDS = 7  # measured of each, big and small alternately (after one unmeasured)
TOKENS = 60  # streamed per answer
SCREENSHOTS = 4  # 3840×2160 PNGs, one a question, in a chat of screenshots

_WORDS = (
    *("the", "model", "reads", "each", "picture", "before", "it", "answers", "and", "a"),
    *("local", "server", "keeps", "every", "byte", "on", "this", "computer", "while"),
    *("the", "window", "shows", "which", "provider", "saw", "what", "and", "why"),
)


def _sentence(rng: random.Random, words: int) -> str:
    chosen = [rng.choice(_WORDS) for _ in range(words)]
    return " ".join(chosen).capitalize() + "."


def _paragraph(rng: random.Random) -> str:
    return " ".join(_sentence(rng, rng.randrange(6, 18)) for _ in range(rng.randrange(2, 5)))


def answer_text(rng: random.Random, n: int) -> str:
    """A Markdown answer of the kind models write: paragraphs, lists, now and then code."""
    parts = [_paragraph(rng) for _ in range(rng.randrange(1, 4))]
    if n % 3 == 0:
        parts.append("\n".join(f"- **Step {i}**: {_sentence(rng, 8)}" for i in range(1, 5)))
    if n % 5 == 0:
        lines = rng.randrange(4, 14)
        body = "\n".join(
            f"    total += value_{i} * {i}  # {_sentence(rng, 4)}" for i in range(lines)
        )
        parts.append(f"```python\ndef add(values):\n    total = 0\n{body}\n    return total\n```")
    parts.append(_sentence(rng, rng.randrange(5, 14)) + " Use `sightline ask` to try it.")
    return "\n\n".join(parts)


def fill(folder: Path, count: int, seed: int = 7) -> str:
    """A conversation of `count` items (questions, answers, now and then a notice)."""
    from app.store import Store
    from routing.transcript import Message, Notice, NoticeKind, TextPart

    rng = random.Random(seed)
    with Store.open(folder) as store:
        conversation = store.conversations.create(title="Long", model="ollama:llama3.2:3b")
        for n in range(count):
            if n % 2 == 0:
                text = _sentence(rng, rng.randrange(4, 20)) + "?"
                store.add_message(conversation, Message("user", (TextPart(text),)))
            elif n % 25 == 1:
                notice = Notice(NoticeKind.ROUTING, "Auto chose llama3.2:3b on this computer.")
                store.add_notice(conversation, notice)
            else:
                message = Message(
                    "assistant", (TextPart(answer_text(rng, n)),), model="ollama:llama3.2:3b"
                )
                store.add_message(conversation, message)
    return conversation


def fill_screenshots(folder: Path, seed: int) -> str:
    """A chat of SCREENSHOTS questions, each with a 4K screenshot of its own, and answers."""
    from app.store import Store
    from benchmarks.bench_pictures import screenshot
    from routing.transcript import Message, TextPart, user_message

    with Store.open(folder) as store:
        conversation = store.conversations.create(title="Screens", model="ollama:llama3.2:3b")
        for n in range(SCREENSHOTS):
            shot = screenshot(3840, 2160, seed=seed * SCREENSHOTS + n)
            store.add_message(conversation, user_message(f"What is on screen {n}?", (shot,)))
            answer = Message("assistant", (TextPart("Panels and buttons."),), model="m")
            store.add_message(conversation, answer)
    return conversation


@contextmanager
def environment(folder: Path, providers: str = "") -> Iterator[None]:
    """No discovery, and no provider but those `providers` configures (TOML): nothing
    else reaches the network while measuring."""
    config = folder / "config.toml"
    config.write_text(f"discover_local = false\n{providers}", encoding="utf-8")
    saved = {k: os.environ.get(k) for k in ("SIGHTLINE_CONFIG", "SIGHTLINE_DATA_DIR")}
    os.environ["SIGHTLINE_CONFIG"] = str(config)
    os.environ["SIGHTLINE_DATA_DIR"] = str(folder / "data")
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


class _Window:
    """A real session on a qasync loop, driven by processing Qt's events by hand."""

    def __init__(self, app: Any) -> None:
        from PySide6.QtCore import QEvent, QObject

        from app.ui.qt_asyncio import new_loop
        from app.ui.session import load_settings, open_session

        self.app = app
        self.loop = new_loop(app)
        asyncio.set_event_loop(self.loop)
        asyncio.events._set_running_loop(self.loop)
        self.session = open_session(load_settings())
        self.painted = 0
        window = self

        class _Paints(QObject):
            def eventFilter(self, watched: QObject, event: QEvent) -> bool:
                if event.type() == QEvent.Type.Paint:
                    window.painted += 1
                return False

        self._filter = _Paints()
        self.view = self.session.window.view
        self.view.viewport().installEventFilter(self._filter)
        self.session.show()
        self.until(lambda: self.session.painted_at is not None)

    def until(self, done: Callable[[], bool], timeout: float = 30.0) -> None:
        """Process Qt's events until `done()` (or fail after `timeout` seconds)."""
        ends = time.perf_counter() + timeout
        while not done():
            if time.perf_counter() > ends:
                raise TimeoutError("the window did not get there")
            self.app.processEvents()

    def settle(self, seconds: float = 0.3) -> None:
        """Let the window finish what it does while idle (measuring rows near the view)."""
        ends = time.perf_counter() + seconds
        while time.perf_counter() < ends:
            self.app.processEvents()

    def open(self, conversation: str) -> float:
        """Seconds from selecting `conversation` to the view's first paint of it."""
        before = self.painted
        started = time.perf_counter()
        self.session.controller.select_conversation(conversation)
        self.until(lambda: self.painted > before)
        return time.perf_counter() - started

    def stream(self, tokens: list[str]) -> list[float]:
        """Append an answer token by token, each flushed and painted; seconds per token."""
        from app.store import StoredItem

        session = self.session
        store, controller = session.store, session.controller
        model = session.window.conversation
        stored: StoredItem = store.begin_assistant(controller.current_id, "ollama:llama3.2:3b")
        model.add_item(stored)
        self.until(lambda: model.row_of(stored.id) is not None)
        self.app.processEvents()
        times = []
        for token in tokens:
            before = self.painted
            started = time.perf_counter()
            model.append_text(stored.id, token)
            model._emit_dirty()  # flush now instead of after the coalescing timer
            self.until(lambda before=before: self.painted > before)  # type: ignore[misc]
            times.append(time.perf_counter() - started)
        return times

    def close(self) -> None:
        """Shut the session down as the app does, then the loop."""
        task = asyncio.ensure_future(self.session.aclose())
        self.until(task.done)
        self.session.window.close()
        self.session.window.deleteLater()
        self.app.processEvents()
        asyncio.events._set_running_loop(None)
        asyncio.set_event_loop(None)
        self.loop.close()


def tokens(count: int, seed: int = 3) -> list[str]:
    """An answer's tokens: words, Markdown and a fenced block, a few characters each."""
    text = answer_text(random.Random(seed), 5) + "\n\n" + answer_text(random.Random(seed + 1), 15)
    pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
    return (pieces * (count // len(pieces) + 1))[:count]


def run() -> list[Row]:
    """Measure and return the rows."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory(prefix="sightline-bench-") as temp:
        folder = Path(temp)
        with environment(folder):
            # Each opening is of a conversation never shown before: nothing is cached.
            data = folder / "data"
            # Made in pairs, so each chat and the one it is compared with lie side by side
            # in the sidebar: opening one repaints the rows from the chat left to it, and
            # a floor listed nearer the top would paint fewer of them.
            bigs, smalls = _pairs(
                lambda seed: fill(data, MESSAGES, seed=seed),
                lambda seed: fill(data, SMALL, seed=100 + seed),
            )
            screens, others = _pairs(
                lambda seed: fill_screenshots(data, seed),
                lambda seed: fill(data, SMALL, seed=200 + seed),
            )
            elsewhere = fill(data, SMALL, seed=99)  # where each opening starts from
            window = _Window(app)
            try:
                opens = _opens(window, bigs, smalls, elsewhere)
                pictured = _opens(window, screens, others, elsewhere)
                held, shown = _viewings(window, screens)
                per_token = _streams(window, bigs[0], smalls[0])
            finally:
                window.close()
    return [
        Row(
            f"open a {MESSAGES:,}-message conversation to first paint",
            statistics.median(opens.ours) * 1000,
            "ms",
            f"≤ 1.5× a {SMALL}-message one",
            f"{SMALL}-message conversation: {statistics.median(opens.floor) * 1000:.0f} ms; "
            f"{opens.ratios()}; {ROUNDS} of each, alternately, each a conversation never "
            "shown before; from the store's read to the painted view",
        ),
        Row(
            f"open a chat of {SCREENSHOTS} 4K screenshots to first paint",
            statistics.median(pictured.ours) * 1000,
            "ms",
            "report",
            f"{SMALL}-message conversation: {statistics.median(pictured.floor) * 1000:.0f} ms; "
            f"{pictured.ratios()}; {ROUNDS} of each, alternately, each never shown before; "
            "the pictures are drawn once decoded off the window's thread, not in this paint",
        ),
        Row(
            "open a 4K screenshot in the picture viewer: the window's thread held",
            statistics.median(held) * 1000,
            "ms",
            "report",
            f"the picture shown after {statistics.median(shown) * 1000:.0f} ms (decoded whole "
            f"on a worker thread, the viewer open meanwhile); {ROUNDS} screenshots, each "
            "opened once",
        ),
        Row(
            f"per streamed token, {MESSAGES:,}-message chat",
            statistics.median(per_token.ours) * 1000,
            "ms",
            f"≤ 1.1× the {SMALL}-message chat",
            f"{SMALL}-message chat: {statistics.median(per_token.floor) * 1000:.2f} ms; "
            f"{per_token.ratios()}; {ROUNDS} answers of {TOKENS} tokens in each, alternately "
            "(each token flushed, laid out and painted; an answer's figure is its median)",
        ),
    ]


def _pairs(ours: Callable[[int], str], floor: Callable[[int], str]) -> tuple[list[str], list[str]]:
    """ROUNDS + 1 chats of each kind, made one of each in turn: (ours, floor)."""
    made: tuple[list[str], list[str]] = ([], [])
    for seed in range(ROUNDS + 1):
        made[0].append(ours(seed))
        made[1].append(floor(seed))
    return made


def _opens(window: _Window, bigs: list[str], smalls: list[str], elsewhere: str) -> Paired:
    """Seconds to open each big and each small conversation, alternately (the first
    of each unmeasured), each from the same other conversation."""
    opens = Paired([], [])
    for round_, (big, small) in enumerate(zip(bigs, smalls, strict=True)):
        for conversation, times in ((big, opens.ours), (small, opens.floor)):
            window.session.controller.select_conversation(elsewhere)
            window.settle()
            took = window.open(conversation)
            window.settle()
            if round_:
                times.append(took)
    return opens


def _viewings(window: _Window, screens: list[str]) -> tuple[list[float], list[float]]:
    """For the first screenshot of each chat (the first chat's unmeasured): seconds the
    window's thread is held opening it in the viewer, and until the viewer shows it."""
    held: list[float] = []
    shown: list[float] = []
    for round_, screen in enumerate(screens):
        picture = window.session.store.messages(screen)[0].pictures[0]
        window.settle()
        started = time.perf_counter()
        viewer = window.session.window.open_picture(picture)
        opened = time.perf_counter()
        window.until(lambda viewer=viewer: not viewer.opening)  # type: ignore[misc]
        window.app.processEvents()  # its paint
        if round_:
            held.append(opened - started)
            shown.append(time.perf_counter() - started)
        viewer.close()
    return held, shown


def _streams(window: _Window, big: str, small: str) -> Paired:
    """Each answer's median seconds per token, in the big and the small chat alternately
    (the first of each unmeasured)."""
    stream = tokens(TOKENS)
    per_token = Paired([], [])
    for round_ in range(ROUNDS + 1):
        for conversation, times in ((big, per_token.ours), (small, per_token.floor)):
            window.session.controller.select_conversation(conversation)
            window.settle()
            took = statistics.median(window.stream(stream))
            if round_:
                times.append(took)
    return per_token
