"""The heights of a long list's rows: measured where seen, estimated elsewhere, summed lazily.

A 5,000-message chat can't lay out every message before it opens, so rows
start with a cheap estimate and get their real height when they are shown (or
while the window is idle). Tops are running sums, recomputed only from the
first row whose height changed: the row that grows while an answer streams is
the last one, so each of its changes costs the same in any length of chat.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate


class RowHeights:
    """Each row's height, whether it was measured, and where each row starts."""

    def __init__(self) -> None:
        """No rows."""
        self._heights: list[int] = []
        self._exact: list[bool] = []
        self._tops: list[int] = [0]  # tops[i] = sum(heights[:i]); valid up to `_valid`
        self._valid = 0
        self.unmeasured = 0  # rows whose height is still a guess

    def __len__(self) -> int:
        """How many rows."""
        return len(self._heights)

    def reset(self, estimates: list[int]) -> None:
        """Start over with these guesses, none measured."""
        self._heights = list(estimates)
        self._exact = [False] * len(estimates)
        self._tops = [0] * (len(estimates) + 1)
        self._valid = 0
        self.unmeasured = len(estimates)

    def insert(self, position: int, estimates: list[int]) -> None:
        """Rows added at `position`, with guessed heights."""
        self._heights[position:position] = estimates
        self._exact[position:position] = [False] * len(estimates)
        self._tops[position + 1 : position + 1] = [0] * len(estimates)
        self._valid = min(self._valid, position)
        self.unmeasured += len(estimates)

    def forget(self) -> None:
        """Every height becomes a guess again (the width changed), kept until measured."""
        self._exact = [False] * len(self._heights)
        self.unmeasured = len(self._heights)

    def set(self, row: int, height: int) -> int:
        """A row's measured height; returns how much it grew (negative: shrank)."""
        if not self._exact[row]:
            self._exact[row] = True
            self.unmeasured -= 1
        delta = height - self._heights[row]
        if delta:
            self._heights[row] = height
            self._valid = min(self._valid, row)
        return delta

    def height(self, row: int) -> int:
        """A row's height, measured or guessed."""
        return self._heights[row]

    def exact(self, row: int) -> bool:
        """Whether a row's height was measured."""
        return self._exact[row]

    def top(self, row: int) -> int:
        """Where a row starts (`top(len(self))` is the total height)."""
        self._sum()
        return self._tops[row]

    def total(self) -> int:
        """The height of all rows together."""
        return self.top(len(self._heights))

    def row_at(self, y: int) -> int:
        """The row at height `y` (clamped to the first and last rows); -1 without rows."""
        if not self._heights:
            return -1
        self._sum()
        return max(0, min(len(self._heights) - 1, bisect_right(self._tops, y) - 1))

    def _sum(self) -> None:
        count = len(self._heights)
        if self._valid >= count:
            return
        start = self._valid
        # accumulate runs in C: even a change near the top of 5,000 rows is cheap.
        sums = accumulate(self._heights[start:], initial=self._tops[start])
        next(sums)  # the initial value: tops[start] itself
        self._tops[start + 1 :] = sums
        self._valid = count
