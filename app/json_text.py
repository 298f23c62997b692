"""JSON text as people paste it or keep it in a file, read into values, or a `SettingsError`
at the line and column where it breaks.

Zed's settings allow `//` and `/* */` comments and trailing commas (`comments=True`
reads them); `mcpServers` files are plain JSON, and a slip gets a hint instead. No
JSON-with-comments library fits: json5 reads more than Zed writes (single quotes),
and is pure Python, seconds for a paste of a few hundred KB; json-with-comments
deletes the comments, so an error's line and column no longer point into the
pasted text. Here comments and trailing commas turn to spaces, line breaks kept.
"""

from __future__ import annotations

import json
import re
from typing import Any

from app.config_check import SettingsError

# A string, as JSON's reader sees it: a line break ends one left open.
_STRING = r'"(?:[^"\\\n]|\\[\s\S])*"?'
_COMMENT = re.compile(rf"({_STRING})|//[^\n]*|/\*[\s\S]*?\*/|/\*")
_TRAILING_COMMA = re.compile(rf"({_STRING})|,(?=[ \t\r\n]*[}}\]])")
_NOT_A_BREAK = re.compile(r"[^\n]")


class JsonObject(dict[str, Any]):
    """A JSON object that remembers which names it saw more than once."""

    duplicates: tuple[str, ...] = ()


def _object(pairs: list[tuple[str, Any]]) -> JsonObject:
    found = JsonObject(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        twice: list[str] = []
        for key, _ in pairs:
            if key in seen:
                twice.append(key)
            seen.add(key)
        found.duplicates = tuple(twice)
    return found


def read_json(text: str, *, comments: bool = False) -> Any:
    """The value of JSON text (objects as `JsonObject`); a byte-order mark is not part of
    it. SettingsError, with the line and column for a syntax error, when it can't be read."""
    text = text.removeprefix("\ufeff")  # Notepad's byte-order mark
    plain = without_trailing_commas(without_comments(text)) if comments else text
    try:
        return json.loads(plain, object_pairs_hook=_object)
    except json.JSONDecodeError as exc:
        hint = _hint(plain, exc.pos) if comments else _hint_for_plain_json(plain, exc.pos)
        raise SettingsError(
            f"not valid JSON: {exc.msg}{hint}", line=exc.lineno, column=exc.colno
        ) from None
    except RecursionError:
        raise SettingsError("the JSON is nested too deeply to read") from None
    except ValueError:  # a number of thousands of digits, which Python won't read
        raise SettingsError("the JSON holds a number too long to read") from None


def _hint(text: str, at: int) -> str:
    return ' (JSON needs "double quotes")' if text[at : at + 1] == "'" else ""


def _hint_for_plain_json(text: str, at: int) -> str:
    """A hint for the usual slips of JSON written by hand: a comment, a trailing comma."""
    here = text[at : at + 2]
    if here.startswith(("//", "/*")):
        return " (JSON does not allow comments)"
    if text[:at].rstrip().endswith(",") and here[:1] in ("}", "]"):
        return " (JSON does not allow a comma before a closing bracket)"
    return _hint(text, at)


def without_comments(text: str) -> str:
    """`text` with `//` and `/* */` comments outside strings turned to spaces.

    Line breaks stay, so a JSON error's line and column still point into the text.
    """

    def blanked(found: re.Match[str]) -> str:
        if found[1] is not None:
            return found[1]  # a string: "http://a" holds no comment
        if found[0] == "/*":
            line = text.count("\n", 0, found.start()) + 1
            column = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
            raise SettingsError("a /* comment is never closed with */", line=line, column=column)
        return _NOT_A_BREAK.sub(" ", found[0])

    return _COMMENT.sub(blanked, text)


def without_trailing_commas(text: str) -> str:
    """`text` with each comma just before a closing `}` or `]` (outside strings) a space."""
    return _TRAILING_COMMA.sub(lambda found: found[1] if found[1] is not None else " ", text)
