"""Clocks a test holds in its hand, for code that takes a `clock` (a monotonic reading):
one that says what the test last set, one that reads out the times it was given."""

from __future__ import annotations


class HandClock:
    """A clock the test moves by hand: `now` is what it says."""

    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class GivenTimes:
    """A clock that reads the times it is given, one per reading."""

    def __init__(self, *times: float) -> None:
        self.times = list(times)

    def __call__(self) -> float:
        return self.times.pop(0)
