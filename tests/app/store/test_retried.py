"""A failed turn retried (app/store/retried.py): the failure gives way to the new answer,
crossings stay on record, and any other response stays as a version beside the retry."""

from __future__ import annotations

from app.ledger import ledger
from app.store import Store
from app.store.retried import make_way_for_retry
from routing.transcript import (
    Crossed,
    Message,
    MessageStatus,
    Notice,
    NoticeKind,
    TextPart,
    ToolResult,
    user_message,
)

ERROR = Notice(NoticeKind.ERROR, "ollama:llama3.2:3b failed: model runner has stopped.")
ROUTED = Notice(NoticeKind.ROUTING, "ollama:llama3.2:3b answers at 127.0.0.1:11434.")
LOOKED = Notice(
    NoticeKind.DISCLOSURE,
    "ollama:llava:7b at 127.0.0.1:11434 looked at 1 picture (a.png) and described it for "
    "ollama:llama3.2:3b, which can't see.",
    crossed=Crossed("ollama:llava:7b", "127.0.0.1:11434", "1 picture (a.png)", "to describe it"),
)


def _answer(text: str, status: MessageStatus = MessageStatus.COMPLETE) -> Message:
    return Message("assistant", (TextPart(text),), model="ollama:llama3.2:3b", status=status)


def _retried(store: Store, *response: Message | Notice) -> tuple[str, list[object]]:
    """A chat whose one turn got `response`, made way for a retry that answers "Again.";
    the chat's shown branch after."""
    chat = store.conversations.create()
    asked = store.add_message(chat, user_message("hello?"))
    for item in response:
        if isinstance(item, Notice):
            store.add_notice(chat, item)
        else:
            store.add_message(chat, item)
    make_way_for_retry(store, chat, asked)
    store.add_message(chat, _answer("Again."))
    return chat, [s.item for s in store.items(chat)]


def test_an_error_gives_way_to_the_retry_and_no_version_is_left(store: Store) -> None:
    chat, shown = _retried(store, ROUTED, ERROR)
    assert [getattr(i, "text", "") for i in shown] == ["hello?", "Again."]
    assert all(s.versions == () for s in store.items(chat))
    assert store.branches.damaged() == {}


def test_a_failed_answers_words_go_too_but_a_crossing_stays_before_the_retry(store: Store) -> None:
    chat, shown = _retried(store, ROUTED, LOOKED, _answer("It is", MessageStatus.FAILED), ERROR)
    assert shown == [user_message("hello?"), LOOKED, _answer("Again.")]
    assert [c.model for c in ledger(store.items(chat))] == ["ollama:llava:7b"]
    assert all(s.versions == () for s in store.items(chat))


def test_an_answer_a_stopped_answer_or_a_tools_result_stays_as_a_version(store: Store) -> None:
    tool = Message("tool", (ToolResult("call-1", "read_file", (TextPart("notes"),)),))
    for response in ((_answer("Hi."),), (_answer("Hi", MessageStatus.STOPPED),), (tool, ERROR)):
        chat, shown = _retried(store, *response)
        assert shown[-1] == _answer("Again.")
        answers = [s for s in store.items(chat) if s.item == _answer("Again.")]
        assert len(answers[0].versions) == 2, response
