"""The words of tool rows and the approval card, without a window."""

from __future__ import annotations

import json

from app.presenters.tool_words import (
    Outcome,
    call_line,
    outcome_of,
    pretty_arguments,
    result_summary,
    shown_text,
)
from app.tools.base import error_result, text_result
from app.turn.tool_step import DENIED, STOPPED
from routing.transcript import ToolCall

CALL = ToolCall("c1", "read_file", {"path": "/home/me/notes.txt"})


def test_a_call_reads_like_code_and_long_values_are_elided() -> None:
    assert call_line(CALL) == 'read_file(path="/home/me/notes.txt")'
    long = ToolCall("c2", "write", {"text": "x" * 500, "n": 3})
    line = call_line(long)
    assert line.startswith('write(text="xxx') and line.endswith("…, n=3)")
    assert len(line) < 90


def test_pretty_arguments_are_indented_json_with_long_values_cut() -> None:
    pretty = pretty_arguments({"path": "/a", "items": list(range(100)), "text": "y" * 1000})
    assert pretty.startswith('{\n  "path": "/a"')
    data = json.loads(pretty)
    assert data["items"][-1] == "… 70 more"
    assert data["text"].endswith("… (600 more characters)")


def test_outcomes_and_summaries() -> None:
    assert outcome_of(text_result(CALL, "fine")) is Outcome.OK
    assert outcome_of(error_result(CALL, DENIED)) is Outcome.DENIED
    assert outcome_of(error_result(CALL, STOPPED)) is Outcome.STOPPED
    assert outcome_of(error_result(CALL, "No such file")) is Outcome.ERROR
    result = text_result(CALL, "\n\n  Buy milk  \nBread")
    assert result_summary(result) == "read_file · ok · Buy milk"


def test_a_long_result_is_cut_for_the_row_saying_how_much() -> None:
    assert shown_text("short\n") == "short"
    long = "\n".join(f"line {n}" for n in range(1000))
    shown = shown_text(long)
    assert shown.startswith("line 0\n") and "more characters (Ctrl+C copies" in shown
    assert shown.count("\n") <= 161
