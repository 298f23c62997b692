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


async def test_words_that_follow_one_another_wait_as_one_run_and_are_one_write(
    store: Store,
) -> None:
    from acp import update_agent_message_text, update_agent_thought_text

    from app.turn.acp.client import SightlineClient, Update, Words
    from app.turn.acp.recording import AcpRecord
    from app.turn.events import TextAdded

    client = SightlineClient()
    client.session_id = "s-1"
    for text in ("a", "b"):
        await client.session_update("s-1", update_agent_message_text(text))
    await client.session_update("s-1", update_agent_thought_text("hmm"))
    await client.session_update("s-1", update_agent_message_text("c"))
    await client.session_update("s-2", update_agent_message_text("another session's"))
    taken = client.ready()
    assert [type(item) for item in taken] == [Words, Update, Words]
    await client.session_update("s-1", update_agent_message_text("d"))  # after the take
    [later] = client.ready()

    chat = store.conversations.create()
    turn = AcpRecord(store, chat, "fake")
    updates = [item for item in (*taken, later) if isinstance(item, Update | Words)]
    events = turn.updates(updates)
    assert [e.text for e in events if isinstance(e, TextAdded)] == ["ab", "cd"]
    assert store.items(chat)[-1].item.text == "abcd"


async def test_a_run_of_words_past_its_size_starts_another(store: Store) -> None:
    from acp import update_agent_message_text

    from app.turn.acp.client import MAX_RUN, SightlineClient, Words

    client = SightlineClient()
    client.session_id = "s-1"
    for _ in range(3):
        await client.session_update("s-1", update_agent_message_text("x" * (MAX_RUN // 2)))
    runs = client.ready()
    assert [item.size for item in runs if isinstance(item, Words)] == [MAX_RUN, MAX_RUN // 2]
    assert len(runs) == 2
