"""The context meter's words: how much of the picked model's window the next turn takes.

From how full the window was after the chat's last answer (what its server counted in
and out) and what the draft adds (its words and attachments, estimated as a request's
are, routing/token_estimate.py). Near the limit it warns that the oldest turns will be
left out (routing/fitting.py).
"""

from __future__ import annotations

from dataclasses import dataclass

NEAR = 0.85  # from this share of the window on, the meter warns


@dataclass(frozen=True)
class MeterReading:
    """What the meter shows: its words, whether it warns, and the share of the window."""

    text: str
    warn: bool
    share: float


def reading(window: int | None, used: int | None, draft: int) -> MeterReading | None:
    """The meter for a model of `window` tokens (None: nothing to show, as for Auto or an
    agent), the chat's last answer having filled `used` of it, the draft adding `draft`."""
    if not window:
        return None
    tokens = (used or 0) + draft
    share = tokens / window
    percent = min(100, round(100 * share))
    text = f"Context: about {tokens:,} of {window:,} tokens ({percent}%)"
    warn = share >= NEAR
    if warn:
        text += " — near the model's window: the oldest turns will be left out"
    return MeterReading(text, warn, share)
