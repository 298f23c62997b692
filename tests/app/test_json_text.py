"""JSON text read as pasted: comments and trailing commas where Zed allows them, and
syntax errors at the line and column of the text itself."""

from __future__ import annotations

import json

import pytest

from app.config_check import SettingsError
from app.json_text import JsonObject, read_json, without_comments, without_trailing_commas


def error_of(text: str, *, comments: bool = False) -> SettingsError:
    with pytest.raises(SettingsError) as caught:
        read_json(text, comments=comments)
    return caught.value


def test_comment_removal_keeps_lines_and_columns() -> None:
    text = '{"a": 1, // note\n /* two\nlines */ "b": [1,],}'
    plain = without_trailing_commas(without_comments(text))
    assert len(plain) == len(text) and plain.count("\n") == text.count("\n")
    assert json.loads(plain) == {"a": 1, "b": [1]}
    assert without_comments('"a // b \\" /* c"') == '"a // b \\" /* c"'


def test_a_string_left_open_ends_at_its_line() -> None:
    # As JSON's reader sees it: what follows on the next line is outside the string.
    assert without_comments('"open\n// gone') == '"open\n       '


def test_comments_and_trailing_commas_only_where_asked() -> None:
    text = '{\n  // mine\n  "a": [1, 2,],\n}'
    assert read_json(text, comments=True) == {"a": [1, 2]}
    error = error_of(text)
    assert error.position == (2, 3)
    assert error.problem.startswith("not valid JSON: ")
    assert error.problem.endswith("(JSON does not allow comments)")


def test_a_syntax_error_names_its_line_and_column() -> None:
    error = error_of('{\n  "a": 1\n  "b": 2\n}')
    assert (error.line, error.column) == (3, 3)
    assert str(error) == "line 3, column 3: not valid JSON: Expecting ',' delimiter"
    assert str(SettingsError.said_of(error, "pasted text")).startswith(
        "pasted text, line 3, column 3: not valid JSON"
    )


def test_an_unclosed_block_comment_says_where() -> None:
    error = error_of('{"a": 1}\n  /* and more', comments=True)
    assert error.position == (2, 3) and "never closed" in error.problem


def test_names_seen_twice_are_remembered() -> None:
    value = read_json('{"a": 1, "b": 2, "a": 3}')
    assert isinstance(value, JsonObject) and value.duplicates == ("a",)
    assert value == {"a": 3, "b": 2}


def test_a_byte_order_mark_is_not_part_of_the_json() -> None:
    assert read_json('\ufeff{"a": 1}') == {"a": 1}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[" * 100_000, "nested too deeply"),
        ("[" + "9" * 5000 + "]", "number too long to read"),
        ("{'a': 1}", 'JSON needs "double quotes"'),
    ],
)
def test_what_json_cannot_read_is_one_error(text: str, words: str) -> None:
    assert words in error_of(text, comments=True).problem
