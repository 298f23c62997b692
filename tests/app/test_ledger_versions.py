"""The whole conversation's ledger (app/ledger_versions.py) from a real store: every
version's crossings, each marked with its version; deleted ones left out; a chat with one
version reads as the shown branch's ledger does."""

from __future__ import annotations

from app.ledger import ledger
from app.ledger_versions import whole_ledger
from app.store import Store
from routing.transcript import Crossed, Message, Notice, NoticeKind, TextPart, user_message


def _look(model: str) -> Notice:
    return Notice(
        NoticeKind.DISCLOSURE,
        f"{model} at 127.0.0.1:11434 looked at 1 picture (a.png).",
        crossed=Crossed(model, "127.0.0.1:11434", "1 picture (a.png)", "to describe it", True),
    )


def _answer(text: str) -> Message:
    return Message("assistant", (TextPart(text),), model="ollama:llama3.2:3b")


def _whole(store: Store, chat: str) -> list[tuple[str, str]]:
    crossings = whole_ledger(store.every_item(chat), store.branches.shown(chat))
    return [(c.model, c.version) for c in crossings]


def test_a_look_on_an_answer_no_longer_shown_is_listed_with_its_version(store: Store) -> None:
    chat = store.conversations.create()
    asked = store.add_message(chat, user_message("What colour is the sky over Lisbon at dusk?"))
    store.add_notice(chat, _look("ollama:llava:7b"))
    store.add_message(chat, _answer("Orange."))
    store.branches.rewind(chat, asked.id)  # answered again
    store.add_notice(chat, _look("ollama:moondream:1.8b"))
    store.add_message(chat, _answer("Pink."))
    the_answer = "the answer to “What colour is the sky over Lisbon at d…”"
    assert _whole(store, chat) == [
        ("ollama:llava:7b", f"{the_answer}, version 1 of 2 (not shown)"),
        ("ollama:moondream:1.8b", f"{the_answer}, version 2 of 2 (shown)"),
    ]
    assert [c.model for c in ledger(store.items(chat))] == ["ollama:moondream:1.8b"]


def test_deleted_versions_are_left_out_and_one_version_reads_as_the_shown_ledger(
    store: Store,
) -> None:
    chat = store.conversations.create()
    store.add_message(chat, user_message("look"))
    look = store.add_notice(chat, _look("ollama:llava:7b"))
    store.add_message(chat, _answer("A square."))
    assert whole_ledger(store.every_item(chat), store.branches.shown(chat)) == ledger(
        store.items(chat)
    )
    store.branches.delete([look.id])
    assert _whole(store, chat) == []
