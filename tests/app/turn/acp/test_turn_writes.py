"""What an agent's turn writes, through the real path (the fake ACP agent as a process, a
real SQLite file): the items it tells of are the ones stored, in a few transactions."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.store import Store, streamed_words
from app.turn import held_words
from app.turn.events import ItemAdded
from routing.transcript import Message, MessageStatus
from tests.app.turn.acp.helpers import EngineFor, fake
from tests.app.turn.engine_helpers import clean_turn, ended, run_turn

# Writes that are only a streaming answer's held words (the 50 ms hold, or the pause's
# timer): how many a turn makes depends on how fast the agent sends, so they are not counted.
HELD_ONLY = ("INSERT INTO item_chunks", "UPDATE conversations SET updated_at")


def _transactions(statements: list[str]) -> list[list[str]]:
    """The statements of each transaction committed, in order."""
    done: list[list[str]] = []
    current: list[str] = []
    for sql in statements:
        if sql == "BEGIN IMMEDIATE":
            current = []
        elif sql == "COMMIT":
            done.append(current)
        else:
            current.append(sql)
    return done


@pytest.mark.parametrize(
    ("behaviours", "commits"),
    [
        # the question; the answer begun with its first words; its end
        ("", 3),
        # the question; the answer begun; the tool call held with its words, written with
        # the answer's end and the tool's result; the next answer begun; its end
        ("tool", 5),
    ],
)
async def test_a_turn_commits_once_per_moment_it_stores(
    store: Store,
    tmp_path: Path,
    engine_for: EngineFor,
    behaviours: str,
    commits: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A hold longer than the turn: what is held is written with the next write, however
    # slowly this machine runs the agent (a 50 ms hold could end between a call and its
    # result, and the call be written alone).
    monkeypatch.setattr(streamed_words, "HOLD_S", 30.0)
    monkeypatch.setattr(held_words, "HOLD_S", 30.0)
    engine, chat, _first = await clean_turn(engine_for, fake(tmp_path, behaviours), "hi", "fake")
    seen: list[str] = []
    store._connection.db.set_trace_callback(seen.append)
    try:
        events = await run_turn(engine, chat, "again", "fake")  # the agent is running
    finally:
        store._connection.db.set_trace_callback(None)
    assert ended(events).error is None
    transactions = _transactions(seen)
    counted = [sql for sql in transactions if not all(s.startswith(HELD_ONLY) for s in sql)]
    assert len(counted) == commits
    begun = [sql for sql in transactions if any("'assistant', 'streaming'" in s for s in sql)]
    assert begun and all(  # each answer begun with its first words
        any(s.startswith("INSERT INTO item_chunks") for s in sql) for sql in begun
    )
    assert not any(sql.startswith("SELECT id, conversation_id") for sql in seen)  # no read-back
    # The chat of an answer streaming in is known, not looked up for each write to it; an
    # item's place is read in one statement; an answer ends in one UPDATE of its row, the
    # turn's last with its stats.
    assert not any(sql.startswith(("SELECT conversation_id", "SELECT leaf_id")) for sql in seen)
    ends = [s for s in seen if s.startswith("UPDATE items SET status")]
    assert len(ends) == len(begun) and "stats = " in ends[-1]


async def test_the_items_a_turn_tells_of_are_the_ones_stored(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    _engine, chat, events = await clean_turn(engine_for, fake(tmp_path, "tool"), "look", "fake")
    told = [e.item for e in events if isinstance(e, ItemAdded)]
    question, begun, result, _next = told
    assert [question, result] == [store.get_item(question.id), store.get_item(result.id)]
    assert isinstance(result.item, Message) and result.item.role == "tool"
    assert begun.item == Message("assistant", model="fake", status=MessageStatus.STREAMING)
    assert [s.id for s in store.items(chat)] == [s.id for s in told]
