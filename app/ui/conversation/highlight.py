"""Code coloured by Pygments, as runs of Qt character formats.

A code block is lexed once per (code, language, style), whatever the width or
however often the answer around it is laid out again, so a long answer
streaming below a finished block never re-lexes it. Very large blocks stay
plain: colouring them would cost more than it helps reading.
"""

from __future__ import annotations

from functools import lru_cache

from cachetools import LRUCache
from pygments import lex
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.styles import get_style_by_name
from pygments.token import Token, _TokenType
from pygments.util import ClassNotFound
from PySide6.QtGui import QColor, QFont, QTextCharFormat

MAX_CHARS = 40_000  # larger blocks are shown plain
_RUNS = 256  # lexed blocks kept

Run = tuple[str, QTextCharFormat | None]  # words and their format (None: the block's own)

_runs: LRUCache[tuple[str, str, str], tuple[Run, ...]] = LRUCache(maxsize=_RUNS)

# What people write after the fence, mapped to the names Pygments knows.
_ALIASES = {"py3": "python", "sh": "bash", "shell": "bash", "zsh": "bash", "console": "console"}


@lru_cache(maxsize=64)
def lexer_for(language: str) -> Lexer | None:
    """The Pygments lexer for a fence's language, or None when unknown or not given."""
    name = language.strip().lower()
    if not name:
        return None
    try:
        # Lexers keep the code's own whitespace: copying must match what was shown.
        return get_lexer_by_name(
            _ALIASES.get(name, name), stripnl=False, stripall=False, ensurenl=False
        )
    except ClassNotFound:
        return None


@lru_cache(maxsize=512)
def _format(style_name: str, token: _TokenType) -> QTextCharFormat | None:
    """The character format of one token type in one style (None: nothing to change)."""
    style = get_style_by_name(style_name).style_for_token(token)
    if not (style["color"] or style["bold"] or style["italic"] or style["underline"]):
        return None
    fmt = QTextCharFormat()
    if style["color"]:
        fmt.setForeground(QColor(f"#{style['color']}"))
    if style["bold"]:
        fmt.setFontWeight(QFont.Weight.Bold)
    if style["italic"]:
        fmt.setFontItalic(True)
    if style["underline"]:
        fmt.setFontUnderline(True)
    return fmt


def highlight(code: str, language: str, style_name: str) -> tuple[Run, ...] | None:
    """`code` as coloured runs, or None when it stays plain (unknown language, too large)."""
    if len(code) > MAX_CHARS:
        return None
    lexer = lexer_for(language)
    if lexer is None:
        return None
    key = (code, lexer.name, style_name)
    cached = _runs.get(key)
    if cached is not None:
        return cached
    runs: list[Run] = []
    for token, words in lex(code, lexer):
        # Spaces need no colour (the style gives them one all the same).
        plain = token is Token.Text or token in Token.Text.Whitespace
        fmt = None if plain else _format(style_name, token)
        # Neighbours of one format are joined: fewer, longer runs insert faster.
        if runs and runs[-1][1] is fmt:
            runs[-1] = (runs[-1][0] + words, fmt)
        else:
            runs.append((words, fmt))
    if "".join(words for words, _ in runs) != code:
        return None  # the lexer changed the words (line ends, say): show them as written
    result = tuple(runs)
    _runs[key] = result
    return result
