"""How an answer came: the tokens its provider counted, and how fast it streamed.

One `AnswerStats` per answer message, measured by the turn for its one request
(app/turn/stats.py), kept by the store with the answer, shown quietly under it
and written into exports. What isn't known stays None: a provider that doesn't
count tokens gives no rate (it is never guessed from characters), an answer
with no words has no time to its first word. Never sent to a model.

This module imports nothing of Sightline's, so the transcript, the store, the
turn, exports and the window can all use it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

# A stream that arrived within this long came in one read (a buffering proxy, a tiny
# answer): its first and last events are too close together for a rate to mean anything.
MIN_RATE_SECONDS = 0.05


@dataclass(frozen=True)
class AnswerStats:
    """What one answer cost and how fast it came; None wherever it isn't known."""

    input_tokens: int | None = None  # as the provider counted them
    output_tokens: int | None = None
    first_token_seconds: float | None = None  # request sent → its first text or tool call
    streaming_seconds: float | None = None  # that first text or tool call → the stream's last event
    # How full the engine's context is after the answer (an agent's `usage_update`).
    context_used: int | None = None
    context_size: int | None = None
    # The server's own time generating the output, where it says (Ollama, llama.cpp).
    generating_seconds: float | None = None

    @property
    def tokens_per_second(self) -> float | None:
        """Output tokens over the server's generating time, else over the streaming time
        (long enough to mean something); None without a count."""
        if self.output_tokens is None:
            return None
        if self.generating_seconds:
            return self.output_tokens / self.generating_seconds
        if self.streaming_seconds is None or self.streaming_seconds < MIN_RATE_SECONDS:
            return None
        return self.output_tokens / self.streaming_seconds

    @property
    def known(self) -> bool:
        """Whether anything at all is known (else there is nothing to keep or show)."""
        return any(value is not None for value in self.to_json().values())

    def to_json(self) -> dict[str, Any]:
        """The stats as JSON-ready data: only what is known."""
        fields = {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "first_token_seconds": self.first_token_seconds,
            "streaming_seconds": self.streaming_seconds,
            "context_used": self.context_used,
            "context_size": self.context_size,
            "generating_seconds": self.generating_seconds,
        }
        return {name: value for name, value in fields.items() if value is not None}

    @classmethod
    def from_json(cls, data: Any) -> AnswerStats | None:
        """Stats read back from `to_json`'s data; a value of the wrong kind is read as unknown,
        so a damaged or hand-edited record never stops a chat from opening."""
        if not isinstance(data, dict):
            return None
        stats = cls(
            input_tokens=_count(data.get("input_tokens")),
            output_tokens=_count(data.get("output_tokens")),
            first_token_seconds=_seconds(data.get("first_token_seconds")),
            streaming_seconds=_seconds(data.get("streaming_seconds")),
            context_used=_count(data.get("context_used")),
            context_size=_count(data.get("context_size")),
            generating_seconds=_seconds(data.get("generating_seconds")),
        )
        return stats if stats.known else None


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def _seconds(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value) or value < 0:
        return None
    return float(value)


def stats_words(stats: AnswerStats, *, spoken: bool = False) -> str:
    """The stats as one short line, e.g. "12 → 148 tokens · first word 0.4 s · 35 tok/s".

    Only what is known is said ("" when nothing is). `spoken` words it for a screen
    reader instead: "12 tokens in, 148 out, first word after 0.4 seconds, 35 tokens a
    second".
    """
    said: list[str] = []
    tokens_in, tokens_out = stats.input_tokens, stats.output_tokens
    if tokens_in is not None and tokens_out is not None:
        said.append(
            f"{tokens_in} tokens in, {tokens_out} out"
            if spoken
            else f"{tokens_in} → {tokens_out} tokens"
        )
    elif tokens_in is not None:
        said.append(f"{tokens_in} tokens in")
    elif tokens_out is not None:
        said.append(f"{tokens_out} tokens out")
    if stats.first_token_seconds is not None:
        seconds = _number(stats.first_token_seconds)
        said.append(f"first word after {seconds} seconds" if spoken else f"first word {seconds} s")
    rate = stats.tokens_per_second
    if rate is not None:
        said.append(f"{_number(rate)} tokens a second" if spoken else f"{_number(rate)} tok/s")
    used, size = stats.context_used, stats.context_size
    if used is not None and size:
        share = f"{min(100, round(100 * used / size))}%"
        said.append(
            f"context {share} full, {used:,} of {size:,} tokens"
            if spoken
            else f"context {used:,} / {size:,} ({share})"
        )
    return (", " if spoken else " · ").join(said)


def _number(value: float) -> str:
    """A measurement as people read one: a tenth below ten ("0.4", "7.5"), else whole ("35")."""
    if value < 9.95:
        return f"{value:.1f}"
    return f"{value:.0f}"
