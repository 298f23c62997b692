"""What every wire's stream keeps while it reads: whose answer it is, what was asked, and
how much it has taken in or held back that shows no event yet (answer_cap.hold)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Self

from routing.errors import MalformedResponse
from routing.models import ProviderConfig
from routing.presets import Preset
from routing.wires.http_errors import not_in_format

if TYPE_CHECKING:
    from routing.wires.http import Streamed


@dataclass(kw_only=True)
class StreamState:
    """One stream's common bookkeeping; each wire's state adds what its format says."""

    FORMAT: ClassVar[str]  # the format's name, as a person reads it
    FIX: ClassVar[str]  # what to point Sightline at instead, when an answer is not in it

    provider: ProviderConfig
    preset: Preset | None = None
    model: str = ""
    had_pictures: bool = False
    taken: int = 0  # pieces taken in that show no event yet (fragments, usage, reasoning)
    held: int = 0  # characters held until their part ends or goes back (answer_cap.hold)

    @classmethod
    def of(
        cls, answer: Streamed, provider: ProviderConfig, preset: Preset | None, **more: Any
    ) -> Self:
        """The state of a stream that has just opened: the model asked, whether pictures went."""
        return cls(
            provider=provider,
            preset=preset,
            model=answer.request.model,
            had_pictures=answer.pictures,
            **more,
        )

    def malformed(self, what: str, sample: str) -> MalformedResponse:
        """An answer not in this stream's format (`what` says how, `sample` shows it)."""
        return not_in_format(self.FORMAT, what, sample, self.FIX, provider_id=self.provider.id)
