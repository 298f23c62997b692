"""Code coloured by Pygments, as runs of Qt character formats.

A code block is lexed once per (code, language, style), whatever the width or
however often the answer around it is laid out again, so a long answer
streaming below a finished block never re-lexes it. Very large blocks stay
plain: colouring them would cost more than it helps reading.

Building a language's lexer compiles its rules: about 20 ms for Python, 11 for
JavaScript, once per run. A chat shown before that is drawn with its code plain
(`build=False`), and the language is wanted: the view builds the wanted lexers
after that paint (`build_wanted`) and draws the code again, coloured. So a chat
with code, the one left open at the last close above all, shows without waiting
for them. Pygments itself loads with the first lexer built.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from cachetools import LRUCache
from PySide6.QtGui import QColor, QFont, QTextCharFormat

if TYPE_CHECKING:
    from pygments.lexer import Lexer
    from pygments.token import _TokenType

MAX_CHARS = 40_000  # larger blocks are shown plain
_RUNS = 256  # lexed blocks kept
_LEXERS = 64  # languages kept (a reply may name any number); as many wanted at once

Run = tuple[str, QTextCharFormat | None]  # words and their format (None: the block's own)

_runs: LRUCache[tuple[str, str, str], tuple[Run, ...]] = LRUCache(maxsize=_RUNS)
# By Pygments' name; None: Pygments knows no such one.
_lexers: LRUCache[str, Lexer | None] = LRUCache(maxsize=_LEXERS)
_wanted: set[str] = set()  # shown plain for now, built by the next `build_wanted`

# What people write after the fence, mapped to the names Pygments knows.
_ALIASES = {"py3": "python", "sh": "bash", "shell": "bash", "zsh": "bash", "console": "console"}


def _name(language: str) -> str:
    """The name Pygments is asked for a fence's language ("" when none is given)."""
    name = language.strip().lower()
    return _ALIASES.get(name, name)


def lexer_for(language: str) -> Lexer | None:
    """The Pygments lexer for a fence's language (built now if it isn't yet), or None
    when unknown or not given."""
    name = _name(language)
    if not name:
        return None
    if name not in _lexers:
        from pygments.lexers import get_lexer_by_name
        from pygments.util import ClassNotFound

        try:
            # Lexers keep the code's own whitespace: copying must match what was shown.
            _lexers[name] = get_lexer_by_name(name, stripnl=False, stripall=False, ensurenl=False)
        except ClassNotFound:
            _lexers[name] = None
    return _lexers[name]


def wanted() -> bool:
    """Whether code was shown plain because its language's lexer isn't built yet."""
    return bool(_wanted)


def build_wanted() -> bool:
    """Build the lexers code was shown plain for; whether any can colour it now."""
    names = sorted(_wanted)
    _wanted.clear()
    built = [lexer_for(name) for name in names]  # each one, not only up to the first
    return any(lexer is not None for lexer in built)


@lru_cache(maxsize=512)
def _format(style_name: str, token: _TokenType) -> QTextCharFormat | None:
    """The character format of one token type in one style (None: nothing to change)."""
    from pygments.styles import get_style_by_name

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


def highlight(
    code: str, language: str, style_name: str, *, build: bool = True
) -> tuple[Run, ...] | None:
    """`code` as coloured runs, or None when it stays plain (unknown language, too large,
    or, without `build`, a language whose lexer isn't built yet: it is wanted then)."""
    if len(code) > MAX_CHARS:
        return None
    name = _name(language)
    if not build and name and name not in _lexers:
        if len(_wanted) < _LEXERS:  # past that, plain: no paint waits on hundreds
            _wanted.add(name)
        return None
    lexer = lexer_for(name)
    if lexer is None:
        return None
    key = (code, lexer.name, style_name)
    cached = _runs.get(key)
    if cached is not None:
        return cached
    from pygments import lex
    from pygments.token import Token

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
