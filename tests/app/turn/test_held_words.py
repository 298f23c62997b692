"""Held streamed words are written once the stream pauses, on a real SQLite file."""

from __future__ import annotations

import asyncio
import sqlite3

from app.store import Store
from app.store.streamed_words import HOLD_S
from app.turn.held_words import SaveOnPause
from routing.transcript import MessageStatus


def _on_disk(store: Store, item_id: int) -> str:
    with sqlite3.connect(store.path) as db:  # its own connection: sees only what is written
        rows = db.execute("SELECT text FROM item_chunks WHERE item_id = ? ORDER BY id", (item_id,))
        return "".join(row[0] for row in rows)


def test_words_held_when_a_stream_pauses_are_written_soon_after(store: Store) -> None:
    conversation = store.conversations.create()
    answer = store.begin_assistant(conversation, "m")
    pause = SaveOnPause(store)

    async def stream_then_pause() -> tuple[str, str]:
        for word in ("Let ", "me ", "think"):
            store.append_text(answer.id, word)
            pause.appended()
        before = _on_disk(store, answer.id)
        await asyncio.sleep(HOLD_S * 3)  # the model thinks; nothing touches the store
        return before, _on_disk(store, answer.id)

    before, after = asyncio.run(stream_then_pause())
    assert (before, after) == ("Let ", "Let me think")
    assert not store.holding_words


def test_a_cancelled_saver_leaves_the_words_to_the_answers_end(store: Store) -> None:
    conversation = store.conversations.create()
    answer = store.begin_assistant(conversation, "m")
    pause = SaveOnPause(store)

    async def stream_then_stop() -> str:
        store.append_text(answer.id, "one ")
        store.append_text(answer.id, "two")
        pause.appended()
        pause.cancel()
        await asyncio.sleep(HOLD_S * 2)
        return _on_disk(store, answer.id)

    assert asyncio.run(stream_then_stop()) == "one "
    store.finish_message(answer.id, MessageStatus.COMPLETE)
    assert store.messages(conversation)[0].text == "one two"
