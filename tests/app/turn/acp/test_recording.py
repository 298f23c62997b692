"""What an agent turn stores (app/turn/acp/recording.py): words in runs, usage in the stats."""

from __future__ import annotations

from pathlib import Path

from app.store import Store
from app.turn.events import ItemFinished
from routing.answer_stats import stats_words
from tests.app.turn.acp.helpers import EngineFor, fake
from tests.app.turn.engine_helpers import clean_turn


async def test_usage_and_context_fullness_are_the_answers_stats(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    _engine, chat, events = await clean_turn(engine_for, fake(tmp_path, "usage"), "hi", "fake")
    stats = store.messages(chat)[-1].stats
    assert stats is not None
    assert (stats.input_tokens, stats.output_tokens) == (900, 300)
    assert (stats.context_used, stats.context_size) == (1200, 8000)
    assert stats.first_token_seconds is not None
    assert "context 1,200 / 8,000 (15%)" in stats_words(stats)
    [finished] = [e for e in events if isinstance(e, ItemFinished)]
    assert finished.stats == stats


def test_a_run_of_words_is_one_write(store: Store) -> None:
    from acp import update_agent_message_text, update_agent_thought_text

    from app.turn.acp.recording import AcpRecord
    from app.turn.events import TextAdded

    chat = store.conversations.create()
    turn = AcpRecord(store, chat, "fake")
    events = turn.updates(
        [
            update_agent_message_text("a"),
            update_agent_message_text("b"),
            update_agent_thought_text("hmm"),
            update_agent_message_text("c"),
        ]
    )
    assert [e.text for e in events if isinstance(e, TextAdded)] == ["ab", "c"]
    assert store.items(chat)[-1].item.text == "abc"
