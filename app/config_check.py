"""One way to check settings and one error style, for the config file, `mcpServers` and
Zed's `agent_servers`.

Every problem is a `SettingsError` (app.config's `ConfigError`, app.tools.mcp.config's
`McpConfigError` are its kinds) said in one line: where (the file, or "pasted text",
and the line when it is known), then the key's path, then what is wrong:

    /home/me/.config/sightline/config.toml, line 12: providers[0].base_url must be a
        string, not a number
    pasted text: mcpServers.foo.args[1] must be a string, not a number
    pasted text, line 4, column 5: not valid JSON: Expecting ',' delimiter

A key's path is a JSON path counted from 0 (`providers[0]` is the first
`[[providers]]`); a name that is not plain is quoted (`mcpServers["my server"]`).
The readers below check one field each; a reader of a whole document catches their
`SettingsError` and says it of its file (`said_of`). Nothing here imports more
than `json` and `re`: the config file is read before the window's first paint.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Self

from routing.json_kinds import json_kind

PASTED = "pasted text"  # the source of what the person pasted in Settings
# An id names a provider in `provider:model`: no colon.
ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
ID_RULE = "letters, digits, '.', '_' or '-' (no colon)"
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")

Key = tuple[str | int, ...]  # a key's path: ("providers", 0, "base_url")


class SettingsError(ValueError):
    """A setting that can't be used: where it is, its key's path and what is wrong."""

    def __init__(
        self,
        problem: str,
        *,
        key: Key = (),
        source: str = "",
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        super().__init__(problem)
        self.problem = problem  # the key's path and what is wrong with it
        self.key = key
        self.source = source  # a file's path, or PASTED
        self.line = line
        self.column = column

    @classmethod
    def said_of(cls, error: SettingsError, source: str, line: int | None = None) -> Self:
        """`error` as this kind, said of `source` (and of `line`, when it names none)."""
        return cls(
            error.problem,
            key=error.key,
            source=error.source or source,
            line=error.line or line,
            column=error.column,
        )

    @property
    def position(self) -> tuple[int, int] | None:
        """(line, column) where the text breaks, when the error knows it."""
        return (self.line, self.column) if self.line and self.column else None

    def __str__(self) -> str:
        place = [self.source] if self.source else []
        if self.line:
            place.append(f"line {self.line}")
            if self.column:
                place.append(f"column {self.column}")
        return f"{', '.join(place)}: {self.problem}" if place else self.problem


def key_path(key: Key) -> str:
    """A key's path in words: `providers[0].base_url`, `mcpServers["my server"].args[1]`."""
    words = ""
    for part in key:
        if isinstance(part, int):
            words += f"[{part}]"
        elif _PLAIN_NAME.match(part):
            words += f".{part}" if words else part
        else:
            words += f"[{json.dumps(part, ensure_ascii=False)}]"
    return words


def kind_of(value: Any) -> str:
    """What a value of JSON or TOML is, in words ("a string", "a list", "a date or time")."""
    if isinstance(value, dt.date | dt.time):
        return "a date or time"
    return json_kind(value)


def problem(key: Key, words: str) -> SettingsError:
    """What is wrong with the key, said after its path."""
    return SettingsError(f"{key_path(key)} {words}" if key else words, key=key)


def must_be(key: Key, what: str, value: Any) -> SettingsError:
    """The key holds the wrong kind of value: `base_url must be a string, not a number`."""
    return problem(key, f"must be {what}, not {kind_of(value)}")


def read_settings_file(path: Path, cap: int, what: str) -> str:
    """A settings file's text, read no further than `cap` bytes; a byte-order mark (as
    some Windows editors write) is not part of it. SettingsError naming the file when it
    can't be read (a device, a pipe, a folder or gigabytes: one line, no wait)."""
    from vision.files import FileRefused, read_capped

    try:
        raw = read_capped(path, cap, what=what)
    except FileRefused as exc:  # its words name the file
        raise SettingsError(str(exc)) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SettingsError(
            f"is not UTF-8 text (byte {exc.start + 1} can't be read); save it as UTF-8",
            source=str(path),
        ) from None


# -- one field each; a missing or null field is its default ------------------------------


def flag(table: Mapping[str, Any], at: Key, name: str, default: bool) -> bool:
    """A true-or-false field."""
    value = table.get(name)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise must_be((*at, name), "true or false", value)
    return value


def maybe_flag(table: Mapping[str, Any], at: Key, name: str, why: str = "") -> bool | None:
    """A true-or-false field that may be left out (None); `why` says what it means."""
    value = table.get(name)
    if value is not None and not isinstance(value, bool):
        raise must_be((*at, name), f"true or false{why}", value)
    return value


def text(
    table: Mapping[str, Any],
    at: Key,
    name: str,
    default: str = "",
    *,
    what: str = "a string",
    holder: str = "",
) -> str:
    """A string field; with `holder` (what it becomes), one holding NUL is refused too."""
    value = table.get(name)
    if value is None:
        return default
    if not isinstance(value, str):
        raise must_be((*at, name), what, value)
    if holder:
        without_nul(value, (*at, name), holder)
    return value


def without_nul(value: str, key: Key, holder: str) -> str:
    """`value`, which becomes a program's command, argument or environment: no NUL."""
    if "\0" in value:
        raise problem(key, f"contains a NUL character, which {holder} can't hold")
    return value


def texts(
    table: Mapping[str, Any], at: Key, name: str, *, what: str, holder: str = "an argument"
) -> tuple[str, ...]:
    """A list of strings (a program's arguments, tool names); none may hold NUL."""
    value = table.get(name)
    if value is None:
        return ()
    key = (*at, name)
    if not isinstance(value, list):
        raise must_be(key, what, value)
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise must_be((*key, index), "a string", item)
        without_nul(item, (*key, index), holder)
    return tuple(value)


def environment(
    table: Mapping[str, Any], at: Key, name: str, *, what: str, strict_names: bool = True
) -> dict[str, str]:
    """A program's environment: names and string values. `strict_names` asks the names to
    be letters, digits and '_' (the config file's rule); otherwise any name a process
    environment can hold."""
    value = table.get(name)
    if value is None:
        return {}
    key = (*at, name)
    if not isinstance(value, dict):
        raise must_be(key, what, value)
    env: dict[str, str] = {}
    for variable, item in value.items():
        place = (*key, variable)
        if strict_names and not ENV_NAME.match(variable):
            raise problem(place, "is not a usable variable name: letters, digits and '_'")
        if not variable or "=" in variable or "\0" in variable:
            raise problem(place, "is not a usable variable name")
        if isinstance(item, int | float) and not isinstance(item, bool):
            raise problem(place, f'must be a string, not a number (write "{item}" in quotes)')
        if not isinstance(item, str):
            raise must_be(place, "a string", item)
        env[variable] = without_nul(item, place, "an environment variable")
    return env
