"""Whatever Codex's app server puts in an item, a usage report or a request, Sightline
stores it, shows it or leaves it: never a traceback. (The schema says what Codex sends;
a newer or broken one may send anything in its place.)"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from app.store import Store
from app.turn.codex.asking import _asked, _permissions_asked
from app.turn.codex.record import CodexRecord
from app.turn.events import ItemAdded, PartAdded, TurnEvent
from routing.transcript import Message, ToolCall
from routing.wires.base import Usage
from tests.fuzz.strategies import FUZZ, JSON, known_bugs, shaped


@contextmanager
def record() -> Iterator[CodexRecord]:
    with tempfile.TemporaryDirectory() as folder, Store.open(Path(folder) / "data") as store:
        chat = store.conversations.create()
        yield CodexRecord(store, chat, "codex", "thread-1")


ITEM = shaped(
    {
        "type": st.sampled_from(["commandExecution", "fileChange", "agentMessage"]) | JSON,
        "id": st.text(min_size=1, max_size=8) | JSON,
        "command": JSON,
        "cwd": JSON,
        "status": st.sampled_from(["completed", "declined", "failed"]) | JSON,
        "aggregatedOutput": JSON,
        "exitCode": JSON,
        "changes": st.lists(shaped({"path": JSON, "diff": JSON}), max_size=3) | JSON,
    }
)


@known_bugs("a change list that was a number or true raised TypeError")
@FUZZ
@given(st.lists(st.tuples(ITEM, st.booleans()), max_size=4))
@example([({"type": "fileChange", "id": "f", "changes": 5}, True)])
def test_any_item_is_stored_as_a_step_or_left(items: list[tuple[dict[str, Any], bool]]) -> None:
    with record() as codex:
        events: list[TurnEvent] = []
        for item, completed in items:
            codex.item(item, completed, events)
        called, answered = steps_of(items)
        # One call per command or change with an id, one stored result once it completes.
        parts = [e.part for e in events if isinstance(e, PartAdded)]
        assert all(isinstance(part, ToolCall) for part in parts)
        assert [part.id for part in parts if isinstance(part, ToolCall)] == called
        stored = codex.store.messages(codex.conversation_id)
        assert [m.tool_results[0].call_id for m in stored if m.role == "tool"] == answered
        shown = [e.item.item for e in events if isinstance(e, ItemAdded)]
        assert [
            m.tool_results[0].call_id for m in shown if isinstance(m, Message) and m.role == "tool"
        ] == answered


def steps_of(items: list[tuple[dict[str, Any], bool]]) -> tuple[list[str], list[str]]:
    """The ids of the steps the items make, in order: each call, and each call's result."""
    called: list[str] = []
    answered: list[str] = []
    for item, completed in items:
        item_id = str(item.get("id") or "")
        if item.get("type") not in ("commandExecution", "fileChange") or not item_id:
            continue
        if item_id not in called:
            called.append(item_id)
        if completed and item_id not in answered:
            answered.append(item_id)
    return called, answered


@FUZZ
@given(
    shaped(
        {
            "last": shaped({k: JSON for k in ("inputTokens", "outputTokens", "totalTokens")})
            | JSON,
            "modelContextWindow": JSON,
        }
    )
)
def test_any_usage_report_is_taken_or_left(usage: dict[str, Any]) -> None:
    with record() as codex:
        codex.token_usage(usage)
        if codex.context is not None:
            used, size = codex.context
            assert used >= 0 and size > 0
        # Taken exactly when its numbers are whole numbers; otherwise left, not guessed at.
        given = usage.get("last")
        last: dict[str, Any] = given if isinstance(given, dict) else {}
        tokens_in, tokens_out = last.get("inputTokens"), last.get("outputTokens")
        if isinstance(tokens_in, int) and isinstance(tokens_out, int):
            assert codex.usage == Usage(tokens_in, tokens_out)
        else:
            assert codex.usage is None
        fullness = (last.get("totalTokens"), usage.get("modelContextWindow"))
        if not all(isinstance(n, int) for n in fullness):
            assert codex.context is None


PERMISSIONS = shaped(
    {
        "network": shaped({"enabled": JSON}) | JSON,
        "fileSystem": shaped(
            {
                "read": st.lists(JSON, max_size=3) | JSON,
                "write": st.lists(JSON, max_size=3) | JSON,
                "entries": st.lists(
                    shaped({"access": st.sampled_from(["read", "write"]) | JSON, "path": JSON}),
                    max_size=3,
                )
                | JSON,
            }
        )
        | JSON,
    }
)


@known_bugs("paths or entries that were a number raised TypeError")
@FUZZ
@given(PERMISSIONS)
@example({"fileSystem": {"write": 3, "entries": 7}})
def test_any_permissions_request_is_shown_in_words(asked: dict[str, Any]) -> None:
    shown = _permissions_asked(asked)
    assert set(shown) <= {"network", "read", "write"}
    for access in ("read", "write"):
        assert all(isinstance(path, str) for path in shown.get(access, []))


@FUZZ
@given(shaped({k: JSON for k in ("command", "cwd", "reason", "grantRoot", "fileChanges")}))
def test_any_approval_request_is_shown(params: dict[str, Any]) -> None:
    shown = _asked(params)
    assert set(shown) <= {"command", "cwd", "reason", "grantRoot", "paths"}
    # Everything asked is shown: a list (a command's words) as one line, files by their paths.
    for key in ("command", "cwd", "reason", "grantRoot"):
        value = params.get(key)
        if value is None:
            assert key not in shown
        else:
            assert shown[key] == (" ".join(map(str, value)) if isinstance(value, list) else value)
    changes = params.get("fileChanges")
    assert shown.get("paths") == (list(changes) if isinstance(changes, dict) else None)
