"""How a file's name is shown: with its control characters escaped.

A name is the person's or a program's to choose, and may hold a newline, an escape
sequence or a direction override. Shown raw, it could forge a line of `ask`'s
output or of a notice; escaped, it reads as what it is.
"""

from __future__ import annotations

import unicodedata

# Format characters that change how the rest of a line reads (bidirectional overrides
# and isolates); other format characters, such as a zero-width joiner, are harmless.
_REORDERING = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")


def shown_name(name: str) -> str:
    """The name with every control character (and line-reordering mark) escaped."""
    if name.isprintable() and not _REORDERING.intersection(name):
        return name
    return "".join(_escaped(c) for c in name)


def _escaped(char: str) -> str:
    if char in _REORDERING or unicodedata.category(char) in ("Cc", "Zl", "Zp"):
        escaped = char.encode("unicode_escape").decode("ascii")
        return escaped if escaped != char else f"\\u{ord(char):04x}"
    return char
