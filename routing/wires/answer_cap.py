"""The most of one answer a wire gives out or holds: `ANSWER_CHARS` characters.

routing/wires/bounded.py bounds each line and event; this bounds their sum. A stream
that never ends (or ends after gigabytes) gives out its words until the answer holds
`ANSWER_CHARS` characters, the last piece cut to fit, and then fails as `AnswerCut`:
what came is kept (the turn stores it as it comes) and the error says where it was
cut. What a wire holds until the answer ends, to give out whole or to send back
later (a tool call's argument fragments, Gemini's signed parts, the Responses API's
reasoning items), counts against the same number (`hold`), so memory stays bounded
however long the stream goes on.
"""

from __future__ import annotations

from typing import Protocol

from routing.endpoints import endpoint_name
from routing.errors import AnswerCut
from routing.models import ProviderConfig
from routing.wires.base import StreamEvent, TextDelta

# Far past any real answer (a model's longest runs to about 128,000 tokens, some
# 500,000 characters), small enough to store and fold in one piece. Read when a
# stream starts, so tests can lower it.
ANSWER_CHARS = 4_000_000


def answer_cut(server: str, limit: int, provider_id: str, what: str = "The answer") -> AnswerCut:
    """The error for an answer cut at `limit` characters."""
    return AnswerCut(
        f"{what} from {server} was cut at {limit:,} characters, the most Sightline keeps of "
        "one answer; what came before is kept.",
        provider_id=provider_id,
        detail=f"more than {limit} characters in one answer",
    )


class AnswerCap:
    """One answer's words, given out until they reach `limit` characters."""

    def __init__(self, limit: int, *, server: str, provider_id: str) -> None:
        self.limit = limit
        self.given = 0
        self.over = False  # words came past the cap: the answer ends here
        self._server, self._provider_id = server, provider_id

    def fit(self, event: StreamEvent) -> StreamEvent | None:
        """The event as it may be given out: words past the cap cut off (None: none fit)."""
        if not isinstance(event, TextDelta):
            return event
        room = self.limit - self.given
        if len(event.text) <= room:
            self.given += len(event.text)
            return event
        self.over = True
        self.given = self.limit
        return TextDelta(event.text[:room]) if room > 0 else None

    def cut(self) -> AnswerCut:
        """The error that ends an answer whose words passed the cap."""
        return answer_cut(self._server, self.limit, self._provider_id)


class Holding(Protocol):
    """A stream's state that holds part of the answer until its end."""

    provider: ProviderConfig
    held: int


def hold(state: Holding, chars: int) -> None:
    """Count `chars` more held by a stream; `AnswerCut` once it holds more than ANSWER_CHARS."""
    state.held += chars
    if state.held > ANSWER_CHARS:
        server = endpoint_name(state.provider.base_url)
        raise answer_cut(server, ANSWER_CHARS, state.provider.id)
