"""What an agent asked, named in one line (app/turn/asked_words.py)."""

from __future__ import annotations

from typing import Any

import pytest

from app.turn.asked_words import COMMAND_CHARS, command_of, one_line


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("rm -rf build", "rm -rf build"),
        ("  rm -rf build\n", "rm -rf build"),
        ("\n\ncat > notes.txt <<EOF\nhello\nEOF\n", "cat > notes.txt <<EOF …"),
        ("echo \x1b[2Jgone", "echo \\x1b[2Jgone"),
        ("echo ok\rforged line", "echo ok …"),  # a carriage return starts a line
        ("echo \u202eevil", "echo \\u202eevil"),
        ("", ""),
    ],
)
def test_a_command_in_one_line(text: str, shown: str) -> None:
    assert one_line(text) == shown


def test_a_long_command_is_cut_within_its_limit() -> None:
    shown = one_line("x" * 500)
    assert len(shown) == COMMAND_CHARS and shown.endswith("…")


@pytest.mark.parametrize(
    ("asked", "command"),
    [
        # Codex's app server: its parsed actions (friendly), else the shell's command.
        (
            {
                "command": "/bin/bash -lc 'touch made.txt && echo made'",
                "commandActions": [{"type": "unknown", "command": "touch made.txt && echo made"}],
            },
            "touch made.txt && echo made",
        ),
        ({"command": "/bin/bash -lc 'ls'", "commandActions": []}, "/bin/bash -lc 'ls'"),
        # The older execCommandApproval: a list of words, and parsedCmd.
        (
            {"command": ["git", "push"], "parsedCmd": [{"type": "unknown", "cmd": "git push"}]},
            "git push",
        ),
        ({"command": ["rm", "-rf", "build"]}, "rm -rf build"),
        # An ACP agent's raw input.
        ({"command": "rm -rf build\necho cleaned", "description": "Clean"}, "rm -rf build …"),
        ({"path": "notes.txt"}, ""),
        ({"command": 7}, ""),
    ],
)
def test_the_command_a_request_names(asked: dict[str, Any], command: str) -> None:
    assert command_of(asked) == command
