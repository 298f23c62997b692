"""Store.search over titles and text, and deleting in two steps so Undo loses nothing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from app.store import Store
from routing.transcript import Message, Notice, NoticeKind, TextPart, user_message
from tests.app.test_store import make_picture


def chat(store: Store, title: str, *texts: str) -> str:
    conversation = store.create_conversation(title=title)
    for text in texts:
        store.add_message(conversation, Message("assistant", (TextPart(text),)))
    return conversation


def test_search_finds_titles_and_text_newest_first(store: Store) -> None:
    lisbon = chat(store, "Trip to Lisbon", "Take tram 28 through Alfama.")
    cats = chat(store, "Cats", "A tabby sat on the mat.")
    store.add_notice(cats, Notice(NoticeKind.ROUTING, "openai:gpt answers (in the cloud): x."))

    assert [h.conversation.id for h in store.search("lisbon")] == [lisbon]  # any case
    [hit] = store.search("TRAM")
    assert hit.conversation.id == lisbon and "tram 28" in hit.snippet
    assert store.search("Lisbon")[0].snippet == ""  # the title matched: nothing to quote
    assert [h.conversation.id for h in store.search("cloud")] == [cats]  # notices count
    assert [h.conversation.id for h in store.search("a")] == [cats, lisbon]
    assert [h.conversation.id for h in store.search("tabby mat")] == [cats]  # every word
    assert store.search("tabby tram") == []
    assert [h.conversation.id for h in store.search("   ")] == [cats, lisbon]


def test_search_takes_wildcards_literally(store: Store) -> None:
    percent = chat(store, "", "It is 100% done")
    chat(store, "", "It is 1000 done")
    chat(store, "", "snake case")
    under = chat(store, "", "snake_case")
    assert [h.conversation.id for h in store.search("100%")] == [percent]
    assert [h.conversation.id for h in store.search("e_c")] == [under]
    assert store.search("\\") == []


def test_a_long_text_gives_a_short_snippet_around_the_match(store: Store) -> None:
    chat(store, "", "word " * 200 + "needle in the hay " + "word " * 200)
    [hit] = store.search("needle")
    assert "needle in the hay" in hit.snippet
    assert hit.snippet.startswith("…") and hit.snippet.endswith("…")
    assert len(hit.snippet) <= 84


def test_trash_hides_restore_brings_back_purge_deletes(store: Store, tmp_path: Path) -> None:
    keep = chat(store, "Keep", "kept words")
    doomed = store.create_conversation(title="Doomed")
    store.add_message(doomed, user_message("doomed words", (make_picture("red"),)))

    store.trash_conversation(doomed)
    assert [c.id for c in store.list_conversations()] == [keep]
    assert [c.id for c in store.trashed_conversations()] == [doomed]
    assert store.get_conversation(doomed) is None
    assert store.search("doomed") == []
    assert len(store.items(doomed)) == 1  # still all there

    store.restore_conversation(doomed)
    assert {c.id for c in store.list_conversations()} == {keep, doomed}
    assert store.trashed_conversations() == []

    store.trash_conversation(doomed)
    store.purge_trash([keep])  # not trashed: untouched
    assert store.get_conversation(keep) is not None
    store.purge_trash([doomed])
    assert store.items(doomed) == [] and store.trashed_conversations() == []
    with sqlite3.connect(tmp_path / "data" / Store.DB_NAME) as db:
        assert db.execute("SELECT COUNT(*) FROM pictures").fetchone()[0] == 0


def test_the_trash_survives_a_crash(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    store = Store.open(folder)
    doomed = chat(store, "Doomed", "words")
    store.trash_conversation(doomed)
    # No close, no purge: as if the process died during the Undo.
    with Store.open(folder) as again:
        assert [c.id for c in again.trashed_conversations()] == [doomed]
        again.purge_trash()
        assert again.trashed_conversations() == []
    store.close()
