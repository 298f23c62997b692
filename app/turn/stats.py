"""Measuring one request's answer as it streams: time to its first word, tokens, speed.

The turn starts an `AnswerClock` just before it sends a request and shows it every
event of that request's stream; `stats()` is what the store keeps with the answer.
It starts after the describer has put pictures into words and stops with the
stream, so neither describing nor a tool's run (between requests) is counted.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from routing.answer_stats import AnswerStats
from routing.wires.base import StreamEvent, TextDelta, ToolCallEvent, Usage

__all__ = ["AnswerClock"]


class AnswerClock:
    """The timing and token counts of one request's stream."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        """Start timing now: the request is about to be sent."""
        self._clock = clock
        self._sent = clock()
        self._first: float | None = None  # the first text or tool call
        self._last: float | None = None  # the latest event after it
        self._input: int | None = None
        self._output: int | None = None
        self._generating: float | None = None  # the server's own time, where it says

    def saw(self, event: StreamEvent) -> None:
        """Note one event of the stream, the moment it arrived."""
        now = self._clock()
        if self._first is None and isinstance(event, TextDelta | ToolCallEvent):
            self._first = now
        if self._first is not None:
            self._last = now
        if isinstance(event, Usage):
            # The wire contract counts what the provider didn't say as 0, and no request
            # reads or writes no tokens at all: 0 is "not said". A later count (a
            # provider's running total) replaces an earlier one.
            self._input = event.input_tokens or self._input
            self._output = event.output_tokens or self._output
            self._generating = round(event.generating_seconds, 3) or self._generating

    def stats(self) -> AnswerStats:
        """What was measured so far (None wherever nothing was), to milliseconds."""
        first = None if self._first is None else round(self._first - self._sent, 3)
        streaming = None
        if self._first is not None and self._last is not None:
            streaming = round(self._last - self._first, 3)
        return AnswerStats(
            self._input, self._output, first, streaming, generating_seconds=self._generating
        )
