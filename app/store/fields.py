"""A JSON object read field by field, each as the kind it must be, a wrong one named by place.

What comes from a file (an export being imported) or a stored row is JSON of any
shape; `Fields` reads one object of it, and a field of the wrong kind, or missing,
is a `FieldError` whose message names where it is, as a JSON path
(`items[3].parts[0].text must be a string, not a number`). Nothing is echoed whole:
a value is described by its kind, or quoted cut short.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection
from typing import Any

from routing.json_kinds import json_kind

_MISSING: Any = object()
_SHOWN = 40  # characters of a wrong value quoted in a message
# A lone surrogate (JSON's "\ud800") is a str Python holds but no UTF-8 can: SQLite and
# every file writer would fail on it later, far from the field that carried it.
_SURROGATE = re.compile("[\ud800-\udfff]")


class FieldError(ValueError):
    """A field of the wrong kind, or missing; the message names its place and what it must be."""


def quoted(value: object) -> str:
    """A value as a message quotes it: short, whatever its length."""
    shown = repr(value)
    return shown if len(shown) <= _SHOWN else shown[:_SHOWN] + "…"


def place(where: str, key: str) -> str:
    """The path of `key` inside the object at `where` ("" is the top)."""
    return f"{where}.{key}" if where else key


def checked_text(value: str, where: str) -> str:
    """A string that UTF-8 can hold; FieldError naming `where` otherwise."""
    if _SURROGATE.search(value):
        raise FieldError(f"{where} holds a lone surrogate (\\ud800-\\udfff), which is no text")
    return value


def checked_json(value: Any, where: str) -> Any:
    """A free-form JSON value (a tool's arguments) whose every string and number can be
    stored and sent again: no lone surrogate, no infinite number. Walked without recursion,
    so nesting as deep as the parser allowed costs no stack."""
    pending = [value]
    while pending:
        at = pending.pop()
        if isinstance(at, str):
            checked_text(at, where)
        elif isinstance(at, float) and not math.isfinite(at):
            raise FieldError(f"{where} holds a number too large for JSON")
        elif isinstance(at, dict):
            for key, item in at.items():
                checked_text(key, where)
                pending.append(item)
        elif isinstance(at, list):
            pending.extend(at)
    return value


class Fields:
    """One JSON object and where it is; its fields read as the kind each must be."""

    __slots__ = ("raw", "where")

    def __init__(self, value: Any, where: str) -> None:
        """Read `value`, found at `where` (a JSON path; "" is the top); it must be an object."""
        if type(value) is not dict:
            at = where or "the top level"
            raise FieldError(f"{at} must be an object, not {json_kind(value)}")
        self.raw: dict[str, Any] = value
        self.where = where

    def _get(self, key: str, default: Any, what: str) -> Any:
        value = self.raw.get(key, _MISSING)
        if value is _MISSING:
            if default is _MISSING:
                raise FieldError(f"{self.where or 'the top level'} has no {key!r} ({what})")
            return default
        return value

    def _wrong(self, key: str, what: str, value: object) -> FieldError:
        return FieldError(f"{place(self.where, key)} must be {what}, not {json_kind(value)}")

    # Each reader takes the common case (present, of its kind) first: an export of 200,000
    # items reads millions of fields, and a place is put in words only when one is wrong.

    def text(self, key: str, default: Any = _MISSING) -> str:
        """A string field."""
        value = self.raw.get(key, _MISSING)
        if type(value) is str and not _SURROGATE.search(value):
            return value
        value = self._get(key, default, "a string")
        if type(value) is not str:
            raise self._wrong(key, "a string", value)
        return checked_text(value, place(self.where, key))

    def number(self, key: str, default: Any = _MISSING) -> float:
        """A finite number field, as a float."""
        value = self._get(key, default, "a number")
        if type(value) not in (int, float):
            raise self._wrong(key, "a number", value)
        if not math.isfinite(value):
            raise FieldError(f"{place(self.where, key)} must be a finite number")
        return float(value)

    def whole(self, key: str, default: Any = _MISSING, *, least: int = 0) -> int:
        """A whole-number field of at least `least`."""
        value = self._get(key, default, "a whole number")
        if type(value) is not int:
            raise self._wrong(key, "a whole number", value)
        if value < least:
            raise FieldError(f"{place(self.where, key)} must be at least {least}, not {value}")
        return value

    def maybe_whole(self, key: str, *, least: int = 0) -> int | None:
        """A whole-number field that may be null or absent (None)."""
        if self.raw.get(key) is None:
            return None
        return self.whole(key, least=least)

    def maybe_seconds(self, key: str) -> float | None:
        """A duration in seconds (at least 0) that may be null or absent (None)."""
        if self.raw.get(key) is None:
            return None
        seconds = self.number(key)
        if seconds < 0:
            raise FieldError(f"{place(self.where, key)} must be at least 0")
        return seconds

    def flag(self, key: str, default: Any = _MISSING) -> bool:
        """A true-or-false field."""
        value = self._get(key, default, "true or false")
        if type(value) is not bool:
            raise self._wrong(key, "true or false", value)
        return value

    def choice(self, key: str, choices: Collection[str], default: Any = _MISSING) -> str:
        """A string field that must be one of `choices`."""
        value = self.raw.get(key, _MISSING)
        if type(value) is str and value in choices:
            return value
        value = self.text(key, default)
        if value not in choices:
            named = ", ".join(sorted(choices))
            raise FieldError(
                f"{place(self.where, key)} must be one of {named}, not {quoted(value)}"
            )
        return value

    def mapping(self, key: str, default: Any = _MISSING) -> dict[str, Any]:
        """A free-form object field (a tool's arguments), checked to be storable."""
        value = self._get(key, default, "an object")
        if type(value) is not dict:
            raise self._wrong(key, "an object", value)
        checked: dict[str, Any] = checked_json(value, place(self.where, key))
        return checked

    def object(self, key: str) -> Fields:
        """An object field, itself read field by field."""
        return Fields(self._get(key, _MISSING, "an object"), place(self.where, key))

    def maybe_object(self, key: str) -> Fields | None:
        """An object field that may be null or absent (None)."""
        value = self.raw.get(key)
        return None if value is None else Fields(value, place(self.where, key))

    def objects(self, key: str, default: Any = _MISSING) -> list[Fields]:
        """A list of objects, each read field by field."""
        value = self._get(key, default, "a list")
        if type(value) is not list:
            raise self._wrong(key, "a list", value)
        at = place(self.where, key)
        return [Fields(item, f"{at}[{index}]") for index, item in enumerate(value)]
