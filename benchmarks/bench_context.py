"""Fitting a turn to its model's window on a 5,000-message chat: what counting and leaving
out add to a turn (the aim: under 5 ms).

The chat is read from a real store file once, as a turn reads it; then the request is
fitted as `ModelRequests.send` does: to a 4,096-token window (most of the chat left out)
and to a 1,000,000-token one (all of it fits, every message counted). The store's own
read of the chat is timed beside it, for scale.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from app.store import Store
from app.turn.context_fit import ContextFit
from benchmarks.common import Row, median_seconds
from routing.catalogue import Catalogue
from routing.chat_settings import ChatSettings
from routing.context_window import ContextFrom
from routing.models import ModelInfo, ProviderConfig
from routing.transcript import Message, Role, TextPart
from routing.wires.base import ChatRequest

MESSAGES = 5_000
WORDS = "The quick brown fox jumps over the lazy dog. " * 8


def run() -> list[Row]:
    """Measure and return the rows."""
    with tempfile.TemporaryDirectory() as folder, Store.open(Path(folder)) as store:
        cid = store.conversations.create()
        for number in range(MESSAGES):
            role: Role = "user" if number % 2 == 0 else "assistant"
            store.add_message(cid, Message(role, (TextPart(f"{number} {WORDS}"),)))
        provider = ProviderConfig("mine", "custom", "http://127.0.0.1:8080/v1")
        fit = ContextFit(store, Catalogue([provider]))
        read = median_seconds(lambda: store.messages(cid), runs=5)
        messages = store.messages(cid)
        request = ChatRequest(model="m", messages=messages)
        rows = [Row(f"read the {MESSAGES:,}-message chat (for scale)", read * 1000, "ms")]
        for window, what in ((4096, "most left out"), (1_000_000, "all of it fits")):
            model = ModelInfo("mine", "m", context_length=window, context_from=ContextFrom.SERVER)

            def fitted(model: ModelInfo = model) -> object:
                return fit.fitted(cid, model, request, ChatSettings())

            seconds = median_seconds(fitted, runs=9)
            rows.append(
                Row(
                    f"fit {MESSAGES:,} messages to {window:,} tokens ({what})",
                    seconds * 1000,
                    "ms",
                    goal="< 5 ms",
                    note=f"{seconds / read:.2f}× the read",
                )
            )
        return rows
