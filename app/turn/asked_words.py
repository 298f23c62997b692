"""What an agent asked to do, in one line of a notice: its command, shortened.

A command an agent (Codex, an ACP agent) asks to run may be many lines long (a heredoc,
a script) and may hold control characters; a notice names it in one line of at most
`COMMAND_CHARS` characters, cut with "…", its control characters escaped, so neither
a notice nor a line of `ask`'s output can be forged by it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vision.labels import shown_name

COMMAND_CHARS = 80


def one_line(text: str, limit: int = COMMAND_CHARS) -> str:
    """The first line with words, within `limit` characters, ending in "…" when anything
    (a later line, the rest of a long one) was left out."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    shown = shown_name(lines[0]) if lines else ""
    if len(shown) > limit:
        return shown[: limit - 1].rstrip() + "…"
    return f"{shown} …" if len(lines) > 1 else shown


def command_of(asked: Mapping[str, Any]) -> str:
    """The command a request names (Codex's parsed actions first, else its `command`,
    a string or a list of words), as one line; "" when it names none."""
    actions = asked.get("commandActions") or asked.get("parsedCmd")
    if isinstance(actions, list):
        words = [
            str(a.get("command") or a.get("cmd") or "") for a in actions if isinstance(a, dict)
        ]
        if words and all(words):
            return one_line(" && ".join(words))
    command = asked.get("command")
    if isinstance(command, list):
        command = " ".join(str(word) for word in command)
    return one_line(command) if isinstance(command, str) else ""
