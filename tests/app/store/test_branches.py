"""Versions in the real store: regenerated answers, edited messages, delete with Undo."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from app.store import DamagedConversation, Store, StoredItem, StoreError
from app.store.branches import asked_in, response_of, shown_branch, tree_damage
from routing.transcript import Message, MessageStatus, Notice, NoticeKind, user_message
from tests.app.store.helpers import DAMAGE, opens_in_time

RELEASE_DB = Path(__file__).parent / "data" / "release-schema-9.db"


def answer(store: Store, cid: str, text: str) -> int:
    stored = store.begin_assistant(cid, "ollama:llama3.2:3b")
    store.append_text(stored.id, text)
    store.finish_message(stored.id, MessageStatus.COMPLETE)
    return stored.id


def exchange(store: Store, cid: str, question: str, reply: str) -> StoredItem:
    """The person asks `question` and the model says `reply`; the person's message."""
    asked = store.add_message(cid, user_message(question))
    answer(store, cid, reply)
    return asked


def texts(store: Store, cid: str) -> list[str]:
    return [s.item.text for s in store.items(cid)]


def test_a_regenerated_answer_is_a_version_and_later_turns_build_on_the_shown_one(
    store: Store,
) -> None:
    cid = store.conversations.create()
    asked = store.add_message(cid, user_message("name a colour"))
    first = answer(store, cid, "red")
    exchange(store, cid, "why?", "because")
    store.branches.rewind(cid, asked.id)
    assert texts(store, cid) == ["name a colour"]  # what a regenerate sends: nothing later
    second = answer(store, cid, "blue")
    assert texts(store, cid) == ["name a colour", "blue"]
    shown = store.items(cid)[1]
    assert shown.versions == (first, second)
    store.add_message(cid, user_message("and another?"))
    assert texts(store, cid) == ["name a colour", "blue", "and another?"]
    store.branches.show_version(first)  # back to the first branch, at its newest item
    assert texts(store, cid) == ["name a colour", "red", "why?", "because"]
    store.branches.show_version(second)
    assert texts(store, cid) == ["name a colour", "blue", "and another?"]
    assert [m.text for m in store.messages(cid)] == ["name a colour", "blue", "and another?"]


def test_an_edited_message_forks_the_conversation_at_it(store: Store) -> None:
    cid = store.conversations.create()
    exchange(store, cid, "hello", "hi")
    edited = exchange(store, cid, "what is 2+2", "4")
    store.branches.rewind(cid, edited.parent_id)
    exchange(store, cid, "what is 3+3", "6")
    assert texts(store, cid) == ["hello", "hi", "what is 3+3", "6"]
    message = store.items(cid)[2]
    assert len(message.versions) == 2 and message.versions[0] == edited.id
    store.branches.show_version(edited.id)
    assert texts(store, cid) == ["hello", "hi", "what is 2+2", "4"]


def test_the_first_message_can_be_edited_too(store: Store) -> None:
    cid = store.conversations.create()
    first = store.add_message(cid, user_message("hullo"))
    assert first.parent_id is None
    store.branches.rewind(cid, None)
    store.add_message(cid, user_message("hello"))
    assert texts(store, cid) == ["hello"]
    assert len(store.items(cid)[0].versions) == 2


def test_delete_hides_a_turn_until_undo_and_purge_keeps_what_followed(store: Store) -> None:
    cid = store.conversations.create()
    exchange(store, cid, "one", "1")
    two = exchange(store, cid, "two", "2")
    exchange(store, cid, "three", "3")
    branch = store.items(cid)
    gone = [two.id, *response_of(branch, two.id)]
    store.branches.delete(gone)
    assert texts(store, cid) == ["one", "1", "three", "3"]
    assert sorted(store.branches.deleted()) == sorted(gone)
    store.branches.restore(gone)
    assert texts(store, cid) == ["one", "1", "two", "2", "three", "3"]
    store.branches.delete(gone)
    store.branches.purge(gone)
    assert texts(store, cid) == ["one", "1", "three", "3"]
    assert store.branches.deleted() == []
    store.add_message(cid, user_message("four"))  # the leaf survived the purge
    assert texts(store, cid)[-1] == "four"


def test_deleting_the_newest_answer_alone_lets_the_next_message_follow_the_question(
    store: Store,
) -> None:
    cid = store.conversations.create()
    store.add_message(cid, user_message("one"))
    last = answer(store, cid, "1")
    store.branches.delete(response_of(store.items(cid), last))
    store.branches.purge()
    store.add_message(cid, user_message("again"))
    assert texts(store, cid) == ["one", "again"]


def test_response_of_a_turn_includes_its_notices_and_tool_steps(store: Store) -> None:
    from routing.transcript import TextPart, ToolCall, ToolResult

    cid = store.conversations.create()
    asked = store.add_message(cid, user_message("read it"))
    store.add_notice(cid, Notice(NoticeKind.ROUTING, "routed"))
    call = store.begin_assistant(cid, "m")
    store.add_part(call.id, ToolCall("c1", "read_file", {}))
    store.finish_message(call.id, MessageStatus.COMPLETE)
    store.add_message(cid, Message("tool", (ToolResult("c1", "read_file", (TextPart("x"),)),)))
    last = answer(store, cid, "done")
    store.add_message(cid, user_message("next"))
    branch = store.items(cid)
    ids = [s.id for s in branch]
    assert response_of(branch, asked.id) == ids[1:5]
    assert response_of(branch, last) == ids[1:5]  # from inside the answer, the same
    assert asked_in(branch, last) == branch[0]
    assert asked_in(branch) == branch[-1]


def test_asked_in_finds_nothing_before_the_person_speaks(store: Store) -> None:
    cid = store.conversations.create()
    store.add_notice(cid, Notice(NoticeKind.INFO, "a note"))
    assert asked_in(store.items(cid)) is None


def test_a_crash_between_rewind_and_the_new_answer_shows_the_earlier_answer(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    with Store.open(folder) as store:
        cid = store.conversations.create()
        asked = store.add_message(cid, user_message("q"))
        answer(store, cid, "the earlier answer")
        store.branches.rewind(cid, asked.id)  # a regenerate starts, and the process dies
    with Store.open(folder) as store:
        assert texts(store, cid) == ["q", "the earlier answer"]


TURNS = ("question", "answer", "again", "answer again")


def damaged_store(folder: Path, damage: str) -> tuple[str, str, list[int]]:
    """Two chats of two turns in a real file, the second then damaged by raw SQL
    (`damage` run with the second chat's item ids a, b, c, d); (sound id, damaged id, ids)."""
    with Store.open(folder) as store:
        chats = []
        for name in ("sound", "damaged"):
            cid = store.conversations.create()
            for n, words in enumerate(TURNS):
                if n % 2:
                    answer(store, cid, f"{name} {words}")
                else:
                    store.add_message(cid, user_message(f"{name} {words}"))
            chats.append(cid)
        ids = [s.id for s in store.every_item(chats[1])]
    with sqlite3.connect(folder / Store.DB_NAME) as db:
        db.execute(damage.format(a=ids[0], b=ids[1], c=ids[2], d=ids[3]))
    return chats[0], chats[1], ids


@pytest.mark.parametrize("kind", DAMAGE)
def test_a_damaged_chat_is_named_and_the_others_open(tmp_path: Path, kind: str) -> None:
    damage, words = DAMAGE[kind]
    folder = tmp_path / "data"
    sound, damaged, ids = damaged_store(folder, damage)
    what = words.format(a=ids[0], b=ids[1], c=ids[2], d=ids[3])
    opens_in_time(folder, ids[-1])  # opening mends rewinds: its walk down went on for ever
    with Store.open(folder) as store:
        assert texts(store, sound) == [f"sound {words}" for words in TURNS]
        assert list(store.branches.damaged()) == [damaged]
        assert store.branches.damaged()[damaged].startswith(what)
        for read in (store.items, store.messages, store.branches.check):
            with pytest.raises(DamagedConversation) as caught:
                read(damaged)
            assert caught.value.conversation_id == damaged
            message = str(caught.value)
            assert f"conversation {damaged!r}" in message and what in message
            assert "\n" not in message and len(message) < 300
        assert isinstance(caught.value, StoreError)  # a store that can't be read, as ever
        # Its end, walked up by SQLite from the leaf, meets the damage and says so too.
        with pytest.raises(DamagedConversation) as caught:
            store.page(damaged)
        assert caught.value.conversation_id == damaged
        store.branches.show_version(ids[-1])
        store.branches.delete([ids[-1]])
        store.branches.purge()
        assert texts(store, sound)[-1] == "sound answer again"
        store.conversations.delete(damaged)  # the person can still let it go
        assert store.branches.damaged() == {}


def test_a_tree_whose_ids_run_backwards_is_sound(store: Store) -> None:
    """Only a suspect is walked: an item that follows a later one is a loop only if the walk
    says so (an older file's ids need not grow along a branch)."""
    cid = store.conversations.create()
    a = store.add_message(cid, user_message("first, written last"))
    b = store.add_message(cid, user_message("second"))
    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE items SET parent_id = NULL WHERE id = ?", (b.id,))
        db.execute("UPDATE items SET parent_id = ? WHERE id = ?", (b.id, a.id))
        db.execute("UPDATE conversations SET leaf_id = ? WHERE id = ?", (a.id, cid))
    assert store.branches.damaged() == {}
    assert texts(store, cid) == ["second", "first, written last"]


def test_a_trashed_damaged_chat_is_not_listed_as_damaged(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    _, damaged, _ = damaged_store(folder, DAMAGE["itself"][0])
    opens_in_time(folder)
    with Store.open(folder) as store:
        store.conversations.trash(damaged)
        assert store.branches.damaged() == {}


def test_a_huge_id_is_named_within_bounds() -> None:
    message = str(DamagedConversation("x" * 100_000, "item 1 follows itself"))
    assert len(message) < 300 and "x" * 80 + "…" in message


def test_tree_damage_walks_each_item_once() -> None:
    """A chain of 200,000 items is sound; a loop far from its start is found and named."""
    chain: dict[int, int | None] = {n: n - 1 for n in range(1, 200_000)}
    chain[0] = None
    assert tree_damage(chain) is None
    chain[0] = 150_000
    assert tree_damage(chain) == "items 0, 1, 2 and 149998 more follow each other in a loop"


def test_shown_branch_of_nothing_is_empty() -> None:
    assert shown_branch([], None) == []


def test_a_database_made_by_the_release_before_versions_reads_as_one_branch(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    shutil.copy(RELEASE_DB, folder / Store.DB_NAME)
    with Store.open(folder) as store:
        chats = {c.title: c.id for c in store.conversations.list()}
        tool_chat = chats["Two turns and a tool"]
        items = store.items(tool_chat)
        assert [type(s.item).__name__ for s in items] == [
            "Message",
            "Notice",
            "Message",
            "Message",
            "Message",
            "Message",
            "Message",
        ]
        first = items[0].item
        assert isinstance(first, Message) and first.pictures[0].label == "red.png"
        assert items[-1].item.text == "It says: buy milk."
        assert all(s.versions == () for s in items)
        assert [s.parent_id for s in items[1:]] == [s.id for s in items[:-1]]
        failed = store.items(chats["A failed turn"])
        assert failed[0].item.text == "hello?"
        # A regenerate in the old chat: a second version beside the release's answer.
        store.branches.rewind(tool_chat, items[3].id)
        answer(store, tool_chat, "Another answer.")
        assert len(store.items(tool_chat)[4].versions) == 2
        assert store.conversations.settings(tool_chat).is_empty


def test_the_end_of_a_branch_is_read_alone_with_its_versions(store: Store) -> None:
    cid = store.conversations.create()
    for n in range(6):
        exchange(store, cid, f"q{n}", f"a{n}")
    edited = exchange(store, cid, "q6", "a6")
    store.branches.rewind(cid, edited.parent_id)
    exchange(store, cid, "q6 again", "a6 again")
    deleted = exchange(store, cid, "q7", "a7")
    store.branches.delete([deleted.id])  # waiting for its Undo: not shown
    whole = store.items(cid)
    # The person's q7 is gone (its answer stays, as after any deleted message).
    assert [s.item.text for s in whole][-4:] == ["a5", "q6 again", "a6 again", "a7"]
    # The last three, with the versions of the edited message as the whole read has them.
    assert store.items(cid, newest=3) == whole[-3:]
    assert store.items(cid, newest=3)[0].versions == (edited.id, whole[-3].id)
    # A page before the first item held: what scrolling up brings.
    earlier = store.items(cid, before=whole[-3].id, newest=4)
    assert earlier == whole[-7:-3]
    assert store.items(cid, before=whole[0].id) == []
    # Another version's page: what leads to it (the same as the shown branch, up there).
    assert store.items(cid, before=edited.id) == whole[:12]
    assert store.items(cid, newest=100) == whole
    assert store.items(cid, newest=0) == []
