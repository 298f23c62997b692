"""Qt signals carry Python lists and dicts as the objects they are.

PySide6 converts a value sent through a signal declared for `list` or `dict` into Qt's
own list or map and back, item by item: the slot gets a copy, made at each emit (2.1 ms
for the sidebar's 5,000 chats). Sightline's signals declare such values `object`, which
PySide passes as they are.
"""

from __future__ import annotations

import ast
from pathlib import Path

from PySide6.QtCore import QObject, Signal

APP = Path(__file__).resolve().parents[2] / "app"


class _Sender(QObject):
    as_list = Signal(list)
    as_object = Signal(object)


def test_pyside_copies_a_list_signals_value_and_passes_an_object_as_it_is() -> None:
    """The reason for the rule, held against the installed PySide6."""
    sender = _Sender()
    heard: list[object] = []
    sender.as_list.connect(heard.append)
    sender.as_object.connect(heard.append)
    sent = [object() for _ in range(3)]
    sender.as_list.emit(sent)
    sender.as_object.emit(sent)
    assert heard[0] == sent and heard[0] is not sent  # copied
    assert heard[1] is sent  # as it is


def _declared_containers(path: Path) -> list[str]:
    """`Signal(...)` declarations in a module that name `list` or `dict` as a value."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "Signal"
            and any(isinstance(a, ast.Name) and a.id in ("list", "dict") for a in node.args)
        ):
            found.append(f"{path.relative_to(APP.parent)}:{node.lineno}")
    return found


def test_no_signal_of_the_app_declares_a_list_or_a_dict() -> None:
    modules = sorted(APP.rglob("*.py"))
    assert len(modules) > 100  # the app's modules were found
    assert [place for path in modules for place in _declared_containers(path)] == []
