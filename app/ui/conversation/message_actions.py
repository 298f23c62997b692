"""What a person can do to a row of the conversation besides copying it: answer it again
(with the same model or another), edit and resend their message, retry a failed turn,
delete, and move between versions. The view asks for these menu entries; each one
becomes one `Requested` for the window to carry out."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Literal, NamedTuple

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QMenu

from app.presenters.rows import Row
from routing.message_status import MessageStatus
from routing.notice_kind import NoticeKind

Action = Literal["regenerate", "edit", "delete", "version", "get_seeing"]


class MenuModel(NamedTuple):
    """A model a "… with" submenu offers: its ref, its words, the picker's eye badge (a null
    icon for a model that doesn't see), and what the badge means."""

    ref: str
    label: str
    icon: QIcon
    sight: str


@dataclass(frozen=True)
class Requested:
    """One action asked for: on which item, and with which model ("" for the chat's)."""

    action: Action
    item_id: int
    model_ref: str = ""


def add_actions(
    menu: QMenu, row: Row, models: Sequence[MenuModel], request: Callable[[Requested], None]
) -> None:
    """Add the row's actions to its menu; `models` are the picker's."""
    message, notice = row.message, row.notice
    item = row.item_id
    failed = notice is not None and notice.kind == NoticeKind.ERROR
    stopped = message is not None and message.status in (
        MessageStatus.STOPPED,
        MessageStatus.FAILED,
        MessageStatus.INTERRUPTED,
    )
    menu.addSeparator()
    if message is not None and message.role == "user" and not row.is_tool:
        menu.addAction("Edit and resend…", lambda: request(Requested("edit", item)))
        _answer_again(menu, "Regenerate answer", item, models, request)
    elif failed or stopped:
        _answer_again(menu, "Retry", item, models, request)
    elif notice is not None and notice.kind == NoticeKind.NOBODY_SEES:
        menu.addAction("Get a model that sees…", partial(request, Requested("get_seeing", item)))
        _answer_again(menu, "Retry", item, models, request)
    elif message is not None or notice is not None:
        _answer_again(menu, "Regenerate", item, models, request)
    for step, words in ((-1, "Previous version"), (+1, "Next version")):
        beside = row.version_beside(step)
        if beside is not None:
            menu.addAction(words, partial(request, Requested("version", beside)))
    person = message is not None and message.role == "user" and not row.is_tool
    menu.addAction(
        "Delete message and answer" if person else "Delete answer",
        lambda: request(Requested("delete", item)),
    )


def _answer_again(
    menu: QMenu,
    words: str,
    item: int,
    models: Sequence[MenuModel],
    request: Callable[[Requested], None],
) -> None:
    """The action, and a submenu of the picker's models (each with the picker's eye badge
    where it sees) to do it with another."""
    menu.addAction(words, lambda: request(Requested("regenerate", item)))
    if not models:
        return
    others = menu.addMenu(f"{words} with")
    others.setAccessibleName(f"{words} with another model")
    others.setToolTipsVisible(True)
    for model in models:
        action = others.addAction(
            model.icon, model.label, partial(request, Requested("regenerate", item, model.ref))
        )
        action.setToolTip(f"{model.ref} — {model.sight}")
        action.setStatusTip(f"{model.ref} — {model.sight}")
