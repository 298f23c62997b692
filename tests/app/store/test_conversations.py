"""The list of conversations: most recent first, titles, search over titles and text,
and deleting in two steps so Undo loses nothing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from app.store import Store
from routing.transcript import (
    Message,
    MessageStatus,
    Notice,
    NoticeKind,
    PicturePart,
    TextPart,
    ToolCall,
    ToolResult,
    user_message,
)
from tests.app.store.helpers import count, title
from tests.pdfs import text_pdf
from tests.pictures import make_picture
from vision.pdf import open_pdf


def chat(store: Store, title: str, *texts: str) -> str:
    conversation = store.conversations.create(title=title)
    for text in texts:
        store.add_message(conversation, Message("assistant", (TextPart(text),)))
    return conversation


def test_conversations_list_most_recently_updated_first(store: Store) -> None:
    a = store.conversations.create("a")
    b = store.conversations.create("b")
    c = store.conversations.create("c")
    assert [s.id for s in store.conversations.list()] == [c, b, a]

    store.add_notice(a, Notice(NoticeKind.INFO, "touch a"))
    assert [s.id for s in store.conversations.list()] == [a, c, b]

    store.conversations.rename(b, "bee")
    assert [s.id for s in store.conversations.list()] == [b, a, c]

    item = store.begin_assistant(c, "m")
    assert store.conversations.list()[0].id == c
    for write in (
        lambda: store.append_text(item.id, "x"),
        lambda: store.add_part(item.id, ToolCall("1", "t")),
        lambda: store.finish_message(item.id, MessageStatus.COMPLETE),
        lambda: store.conversations.set_model(c, "other"),
    ):
        store.add_notice(a, Notice(NoticeKind.INFO, "a again"))
        before = store.conversations.get(c)
        write()
        after = store.conversations.get(c)
        assert before is not None and after is not None
        assert after.updated_at > before.updated_at
        assert store.conversations.list()[0].id == c


def test_a_chats_place_is_where_the_list_puts_it(store: Store) -> None:
    """Counted as `list` orders: by use, newest first, then the newer made first (ties)."""
    chats = [store.conversations.create(f"c{n}") for n in range(8)]
    with store._connection.write() as db:  # three used at the same moment
        db.execute("UPDATE conversations SET updated_at = 5.0 WHERE title IN ('c1', 'c4', 'c6')")
    store.conversations.trash(chats[7])  # waiting for its Undo: not listed, before none
    store.add_notice(chats[2], Notice(NoticeKind.INFO, "used"))
    listed = [s.id for s in store.conversations.list()]
    assert [store.conversations.place(chat) for chat in listed] == list(range(len(listed)))
    assert listed[-3:] == [chats[6], chats[4], chats[1]]


def test_titled_finds_the_newest_of_one_title_only(store: Store) -> None:
    served = [store.conversations.create("Served to a script") for _ in range(3)]
    store.conversations.create("Served to a script and more")
    gone = store.conversations.create("Served to a script")
    store.conversations.trash(gone)
    store.add_notice(served[0], Notice(NoticeKind.INFO, "touched: the newest now"))
    assert [s.id for s in store.conversations.titled("Served to a script", 2)] == [
        served[0],
        served[2],
    ]
    assert store.conversations.titled("served to a script", 5) == []  # exactly that title


def test_setting_the_model_a_chat_already_has_writes_nothing(store: Store) -> None:
    chat = store.conversations.create(model="ollama:llava:7b")
    before = store.conversations.get(chat)

    store.conversations.set_model(chat, "ollama:llava:7b")  # each turn says its model
    same = store.conversations.get(chat)
    store.conversations.set_model(chat, "ollama:qwen3:4b")
    changed = store.conversations.get(chat)

    assert before is not None and same is not None and changed is not None
    assert same == before  # not even touched: it stays where it was in the sidebar
    assert changed.model == "ollama:qwen3:4b" and changed.updated_at >= before.updated_at


def test_conversation_summary_fields(store: Store) -> None:
    conversation = store.conversations.create("Trip", "local:llava")
    store.conversations.set_model(conversation, "cloud:gpt")
    summary = store.conversations.get(conversation)
    assert summary is not None
    assert (summary.id, summary.title, summary.model) == (conversation, "Trip", "cloud:gpt")
    assert len(conversation) == 32 and int(conversation, 16) >= 0
    assert summary.created_at <= summary.updated_at
    assert store.conversations.get("nope") is None


def test_first_user_message_titles_an_untitled_conversation(store: Store) -> None:
    conversation = store.conversations.create()
    store.add_message(conversation, Message(role="system", parts=(TextPart("System rules"),)))
    assert title(store, conversation) == ""
    long_line = "Please compare these two screenshots of the settings dialog carefully"
    store.add_message(conversation, user_message(f"\n  {long_line}\nsecond line"))
    made = title(store, conversation)
    assert made == "Please compare these two screenshots of the settings dialog…"
    assert len(made) <= 61
    store.add_message(conversation, user_message("Something else"))
    assert title(store, conversation) == made


def test_titles_are_kept_and_long_words_are_cut(store: Store) -> None:
    named = store.conversations.create("My title")
    store.add_message(named, user_message("hello"))
    assert title(store, named) == "My title"

    unbroken = store.conversations.create()
    store.add_message(unbroken, user_message("x" * 100))
    assert title(store, unbroken) == "x" * 60 + "…"


def test_search_finds_titles_and_text_newest_first(store: Store) -> None:
    lisbon = chat(store, "Trip to Lisbon", "Take tram 28 through Alfama.")
    cats = chat(store, "Cats", "A tabby sat on the mat.")
    store.add_notice(cats, Notice(NoticeKind.ROUTING, "openai:gpt answers (in the cloud): x."))

    assert [h.conversation.id for h in store.conversations.search("lisbon")] == [lisbon]  # any case
    [hit] = store.conversations.search("TRAM")
    assert hit.conversation.id == lisbon and "tram 28" in hit.snippet
    # the title matched: nothing to quote
    assert store.conversations.search("Lisbon")[0].snippet == ""
    # notices count
    assert [h.conversation.id for h in store.conversations.search("cloud")] == [cats]
    assert [h.conversation.id for h in store.conversations.search("a")] == [cats, lisbon]
    # every word
    assert [h.conversation.id for h in store.conversations.search("tabby mat")] == [cats]
    assert store.conversations.search("tabby tram") == []
    assert [h.conversation.id for h in store.conversations.search("   ")] == [cats, lisbon]


def test_search_takes_wildcards_literally(store: Store) -> None:
    percent = chat(store, "", "It is 100% done")
    chat(store, "", "It is 1000 done")
    chat(store, "", "snake case")
    under = chat(store, "", "snake_case")
    assert [h.conversation.id for h in store.conversations.search("100%")] == [percent]
    assert [h.conversation.id for h in store.conversations.search("e_c")] == [under]
    assert store.conversations.search("\\") == []


def test_a_long_text_gives_a_short_snippet_around_the_match(store: Store) -> None:
    chat(store, "", "word " * 200 + "needle in the hay " + "word " * 200)
    [hit] = store.conversations.search("needle")
    assert "needle in the hay" in hit.snippet
    assert hit.snippet.startswith("…") and hit.snippet.endswith("…")
    assert len(hit.snippet) <= 84


def test_delete_removes_items_and_only_orphaned_pictures(store: Store) -> None:
    shared, own, in_result = make_picture("red"), make_picture("green"), make_picture("blue")
    keep, doomed = store.conversations.create(), store.conversations.create()
    store.add_message(keep, user_message("keep", (shared,)))
    store.add_message(doomed, user_message("doomed", (shared, own)))
    streaming = store.begin_assistant(doomed, "m")
    store.add_part(
        streaming.id, ToolResult("c", "shot", parts=(TextPart("x"), PicturePart(in_result)))
    )
    store.add_notice(doomed, Notice(NoticeKind.INFO, "bye"))
    assert count(store.path, "pictures") == 3

    store.conversations.delete(doomed)

    assert store.conversations.get(doomed) is None
    assert store.items(doomed) == []
    assert store.get_item(streaming.id) is None
    assert store.picture(shared.sha256) is not None
    assert store.picture(own.sha256) is None
    assert store.picture(in_result.sha256) is None
    assert count(store.path, "items") == 1
    assert count(store.path, "item_pictures") == 1
    assert store.messages(keep)[0].pictures == (shared,)
    store.conversations.delete(doomed)  # deleting again is harmless


def test_deleting_a_conversation_drops_only_pdfs_nobody_else_uses(store: Store) -> None:
    shared = open_pdf(text_pdf(["shared"]), name="shared.pdf")
    own = open_pdf(text_pdf(["own"]), name="own.pdf")
    keep, doomed = store.conversations.create(), store.conversations.create()
    store.add_message(keep, user_message("keep", pdfs=(shared,)))
    store.add_message(doomed, user_message("doomed", pdfs=(shared, own)))
    assert count(store.path, "pdfs") == 2
    store.conversations.delete(doomed)
    assert count(store.path, "pdfs") == 1
    assert store.messages(keep)[0].pdfs == (shared,)


def test_trash_hides_restore_brings_back_purge_deletes(store: Store, tmp_path: Path) -> None:
    keep = chat(store, "Keep", "kept words")
    doomed = store.conversations.create(title="Doomed")
    store.add_message(doomed, user_message("doomed words", (make_picture("red"),)))

    store.conversations.trash(doomed)
    assert [c.id for c in store.conversations.list()] == [keep]
    assert [c.id for c in store.conversations.trashed()] == [doomed]
    assert store.conversations.get(doomed) is None
    assert store.conversations.search("doomed") == []
    assert len(store.items(doomed)) == 1  # still all there

    store.conversations.restore(doomed)
    assert {c.id for c in store.conversations.list()} == {keep, doomed}
    assert store.conversations.trashed() == []

    store.conversations.trash(doomed)
    store.conversations.purge([keep])  # not trashed: untouched
    assert store.conversations.get(keep) is not None
    store.conversations.purge([doomed])
    assert store.items(doomed) == [] and store.conversations.trashed() == []
    with sqlite3.connect(tmp_path / "data" / Store.DB_NAME) as db:
        assert db.execute("SELECT COUNT(*) FROM pictures").fetchone()[0] == 0


def test_has_any_says_whether_the_list_would_list_one(store: Store) -> None:
    assert store.conversations.has_any() is False
    only = chat(store, "Only", "words")
    assert store.conversations.has_any() is True
    store.conversations.trash(only)  # waiting for its Undo: not listed
    assert store.conversations.has_any() is False
    store.conversations.restore(only)
    assert store.conversations.has_any() is True


def test_the_trash_survives_a_crash(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    store = Store.open(folder)
    doomed = chat(store, "Doomed", "words")
    store.conversations.trash(doomed)
    # No close, no purge: as if the process died during the Undo.
    with Store.open(folder) as again:
        assert [c.id for c in again.conversations.trashed()] == [doomed]
        again.conversations.purge()
        assert again.conversations.trashed() == []
    store.close()


def test_a_title_is_the_plain_words_of_the_first_message(store: Store) -> None:
    from app.store.conversations import short_title

    assert short_title("# **Fix** the `parser` bug\nmore") == "Fix the parser bug"
    assert short_title("> - [ ] see [the docs](http://x) and ![a chart](c.png)") == (
        "see the docs and a chart"
    )
    assert short_title("```python\nprint(1)\n```") == "print(1)"
    assert short_title("1. _first_ step, snake_case_name kept") == (
        "first step, snake_case_name kept"
    )
    cid = store.conversations.create()
    store.add_message(cid, user_message("## Plan a *trip*\n\nto Lisbon"))
    assert title(store, cid) == "Plan a trip"
