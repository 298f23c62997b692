"""A long chat a page at a time, on a real SQLite file: its end first, then the page above,
each beginning where a turn does; and what the window reads from the end alone."""

from __future__ import annotations

from app.store import Store
from app.store.items import CARRIED
from app.store.pages import PAGE
from routing.answer_stats import AnswerStats
from routing.transcript import CarriedPart, Message, TextPart, ToolResult, user_message


def _answer(store: Store, chat: str, text: str, stats: AnswerStats | None = None) -> int:
    return store.add_message(
        chat, Message("assistant", (TextPart(text),), model="ollama:m", stats=stats)
    ).id


def test_pages_from_the_end_cover_the_chat_once_each_from_a_turns_start(store: Store) -> None:
    chat = store.conversations.create()
    for n in range(150):
        store.add_message(chat, user_message(f"q{n}"))
        _answer(store, chat, f"a{n}")
    whole = store.items(chat)
    pages = [store.page(chat)]
    while pages[-1] and pages[-1][0].parent_id is not None:
        pages.append(store.page(chat, before=pages[-1][0].id))
    assert len(pages) == -(-300 // PAGE) and all(len(page) == PAGE for page in pages[:-1])
    assert [stored for page in reversed(pages) for stored in page] == whole
    assert all(page[0].item.text.startswith("q") for page in pages)
    assert store.page(chat, before=whole[0].id) == []


def test_a_page_that_begins_inside_a_turn_takes_the_rest_of_it(store: Store) -> None:
    chat = store.conversations.create()
    store.add_message(chat, user_message("before"))
    _answer(store, chat, "yes")
    asked = store.add_message(chat, user_message("run the tools"))
    for n in range(PAGE + 30):  # one agent turn, longer than a page
        result = ToolResult(f"call_{n}", "shell", (TextPart(f"output {n}"),))
        store.add_message(chat, Message("tool", (result,)))
    page = store.page(chat)
    assert page[0].id == asked.id and len(page) == PAGE + 31
    assert [s.item.text for s in store.page(chat, before=asked.id)] == ["before", "yes"]


def test_the_window_reads_the_last_count_and_the_folder_without_the_whole_chat(
    store: Store,
) -> None:
    chat = store.conversations.create()
    folder = CarriedPart("acp_folder", "fake", {"cwd": "/work/project"})
    store.add_message(chat, Message("user", (TextPart("start"), folder)))
    _answer(store, chat, "counted", AnswerStats(context_used=1234))
    for n in range(20):
        store.add_message(chat, user_message(f"q{n}"))
        _answer(store, chat, f"a{n}")  # no count: an older answer's stands
    assert store.context_used(chat) == 1234
    carrying = store.carrying(chat)
    assert [m.text for m in carrying] == ["start"] and folder in carrying[0].parts
    store.branches.rewind(chat, None)  # the person edits the first message
    store.add_message(chat, user_message("start over"))
    assert store.context_used(chat) is None and store.carrying(chat) == []


def test_the_messages_carrying_a_folder_are_found_from_their_own_index(store: Store) -> None:
    chat = store.conversations.create()
    folder = CarriedPart("acp_folder", "fake", {"cwd": "/work/project"})
    store.add_message(chat, Message("user", (TextPart("start"), folder)))
    db = store._connection.db
    # Exactly the pattern the index was made for: any other, and SQLite reads every item.
    (made,) = db.execute("SELECT sql FROM sqlite_master WHERE name = 'items_carrying'").fetchone()
    assert made.endswith(f"parts LIKE '{CARRIED}'")
    plan = db.execute(
        f"EXPLAIN QUERY PLAN SELECT id FROM items WHERE conversation_id = ? "
        f"AND parts LIKE '{CARRIED}' ORDER BY seq",
        (chat,),
    ).fetchall()
    assert any("items_carrying" in str(tuple(step)) for step in plan)
    assert [m.text for m in store.carrying(chat)] == ["start"]
