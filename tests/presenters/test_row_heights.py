"""A long list's row heights: estimated, measured, summed lazily, and found by position."""

from __future__ import annotations

from app.presenters.row_heights import RowHeights


def test_row_heights_sum_lazily_and_find_rows() -> None:
    rows = RowHeights()
    rows.reset([10, 20, 30])
    assert (rows.total(), rows.unmeasured) == (60, 3)
    assert [rows.row_at(y) for y in (-5, 0, 9, 10, 59, 60, 500)] == [0, 0, 0, 1, 2, 2, 2]
    assert rows.set(1, 25) == 5 and rows.exact(1) and rows.unmeasured == 2
    assert (rows.top(2), rows.total()) == (35, 65)
    rows.insert(3, [5, 5])
    assert (len(rows), rows.total(), rows.top(4)) == (5, 75, 70)
    rows.forget()
    assert rows.unmeasured == 5 and rows.total() == 75  # guesses kept until measured
