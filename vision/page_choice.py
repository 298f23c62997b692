"""Which pages of a PDF to send when it doesn't fit whole: those that answer the question.

A full-text index of the pages, made on this computer in memory (SQLite's FTS5, in the
standard library), ranks them by BM25 against the question's words. The first page
always goes (a title, an abstract, what the document is); then the best-ranked pages
while they fit the budget; then, with room left, the pages that follow the first in
order. The pages go in their own order, whatever their rank.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Sequence
from typing import TypeVar

P = TypeVar("P")

_WORD = re.compile(r"\w{2,}", re.UNICODE)
MAX_QUERY_WORDS = 64  # a question longer than this is its first words, for the ranking


def ranked(texts: Sequence[str], question: str) -> list[int]:
    """The indexes of `texts` that share a word with the question, best first (BM25)."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(question)))[:MAX_QUERY_WORDS]
    if not words or not texts:
        return []
    query = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
    with sqlite3.connect(":memory:") as db:
        try:
            db.execute("CREATE VIRTUAL TABLE pages USING fts5(body)")
        except sqlite3.OperationalError:  # an SQLite built without FTS5: no ranking
            return []
        db.executemany("INSERT INTO pages (rowid, body) VALUES (?, ?)", enumerate(texts))
        rows = db.execute(
            "SELECT rowid FROM pages WHERE pages MATCH ? ORDER BY bm25(pages)", (query,)
        ).fetchall()
    return [int(row[0]) for row in rows]


def chosen(
    pages: Sequence[P],
    text: Callable[[P], str],
    tokens: Callable[[P], int],
    budget: int,
    question: str,
) -> list[P]:
    """The pages to send within `budget` tokens: the first, the best for the question, then
    the next in order; in their own order. At least the first page, whatever its size."""
    if not pages:
        return []
    keep = {0}
    used = tokens(pages[0])
    order = ranked([text(p) for p in pages], question)
    best = set(order)
    order += [i for i in range(len(pages)) if i not in best]
    for index in order:
        if index in keep:
            continue
        cost = tokens(pages[index])
        if used + cost > budget:
            continue
        keep.add(index)
        used += cost
    return [pages[i] for i in sorted(keep)]


def spans(numbers: Sequence[int]) -> str:
    """Page numbers in words, runs joined: "1, 7-9 and 12"."""
    runs: list[tuple[int, int]] = []
    for number in sorted(numbers):
        if runs and number == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    shown = [f"{a}" if a == b else f"{a}-{b}" for a, b in runs]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"
