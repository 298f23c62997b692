"""One error style for every setting: where, the key's path, what is wrong; one check
per kind of field."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from app.config_check import (
    SettingsError,
    environment,
    flag,
    key_path,
    kind_of,
    maybe_flag,
    text,
    texts,
)


def test_an_error_says_where_then_the_key_then_what_is_wrong() -> None:
    error = SettingsError("providers[0].base_url must be a string, not a number")
    assert str(SettingsError.said_of(error, "config.toml", 12)) == (
        "config.toml, line 12: providers[0].base_url must be a string, not a number"
    )
    assert str(error) == error.problem  # nowhere named yet
    broken = SettingsError("not valid JSON: Expecting value", line=4, column=5)
    assert broken.position == (4, 5)
    said = SettingsError.said_of(broken, "pasted text", 9)
    assert str(said) == "pasted text, line 4, column 5: not valid JSON: Expecting value"


def test_said_of_keeps_its_kind_and_key() -> None:
    class FileError(SettingsError):
        pass

    error = SettingsError("x must be true or false", key=("x",))
    said = FileError.said_of(error, "a.toml")
    assert isinstance(said, FileError) and said.key == ("x",)


@pytest.mark.parametrize(
    ("key", "words"),
    [
        (("providers", 0, "base_url"), "providers[0].base_url"),
        (("mcpServers", "my server", "args", 1), 'mcpServers["my server"].args[1]'),
        (("env", "A=B"), 'env["A=B"]'),
        (("", "x"), '[""].x'),
        ((), ""),
    ],
)
def test_a_key_s_path_is_a_json_path(key: tuple[str | int, ...], words: str) -> None:
    assert key_path(key) == words


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (3, "a number"),
        ("x", "a string"),
        (dt.date(2024, 1, 1), "a date or time"),
        ({}, "an object"),
    ],
)
def test_kinds_in_words(value: Any, words: str) -> None:
    assert kind_of(value) == words


def test_a_missing_or_null_field_is_its_default() -> None:
    table: dict[str, Any] = {"a": None}
    assert flag(table, (), "a", True) is True
    assert maybe_flag(table, (), "b") is None
    assert text(table, ("t",), "a", "x") == "x"
    assert texts(table, (), "a", what="a list") == ()
    assert environment(table, (), "a", what="a table") == {}


@pytest.mark.parametrize(
    ("table", "read", "words"),
    [
        (
            {"on": "yes"},
            lambda t: flag(t, ("p", 0), "on", True),
            "p[0].on must be true or false, not a string",
        ),
        (
            {"on": 1},
            lambda t: maybe_flag(t, (), "on", " (why)"),
            "on must be true or false (why), not a number",
        ),
        (
            {"s": 3},
            lambda t: text(t, (), "s", what="text in quotes"),
            "s must be text in quotes, not a number",
        ),
        (
            {"s": "a\0b"},
            lambda t: text(t, (), "s", holder="a command"),
            "s contains a NUL character, which a command can't hold",
        ),
        (
            {"a": "x"},
            lambda t: texts(t, (), "a", what="a list of strings"),
            "a must be a list of strings, not a string",
        ),
        (
            {"a": ["x", 3]},
            lambda t: texts(t, (), "a", what="a list"),
            "a[1] must be a string, not a number",
        ),
        (
            {"a": ["\0"]},
            lambda t: texts(t, (), "a", what="a list"),
            "a[0] contains a NUL character",
        ),
        (
            {"e": ["A"]},
            lambda t: environment(t, (), "e", what="a table"),
            "e must be a table, not a list",
        ),
        (
            {"e": {"P": 80}},
            lambda t: environment(t, (), "e", what="a table"),
            'e.P must be a string, not a number (write "80" in quotes)',
        ),
        (
            {"e": {"P": None}},
            lambda t: environment(t, (), "e", what="a table"),
            "e.P must be a string, not null",
        ),
        (
            {"e": {"A B": "1"}},
            lambda t: environment(t, (), "e", what="a table"),
            "e[\"A B\"] is not a usable variable name: letters, digits and '_'",
        ),
        (
            {"e": {"A=B": "1"}},
            lambda t: environment(t, (), "e", what="t", strict_names=False),
            'e["A=B"] is not a usable variable name',
        ),
    ],
)
def test_each_check_says_the_key_and_what_it_must_be(
    table: dict[str, Any], read: Any, words: str
) -> None:
    with pytest.raises(SettingsError) as caught:
        read(table)
    assert str(caught.value).startswith(words)


def test_a_loose_environment_takes_any_name_a_process_can_hold() -> None:
    assert environment({"e": {"a-b.c": "1"}}, (), "e", what="t", strict_names=False) == {
        "a-b.c": "1"
    }
