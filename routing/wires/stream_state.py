"""What every wire's stream keeps while it reads: whose answer it is, what was asked, and
how much it has taken in or held back that shows no event yet (answer_cap.hold)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from routing.errors import MalformedResponse
from routing.models import ProviderConfig
from routing.presets import Preset
from routing.wires.http_errors import not_in_format


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

    def malformed(self, what: str, sample: str) -> MalformedResponse:
        """An answer not in this stream's format (`what` says how, `sample` shows it)."""
        return not_in_format(self.FORMAT, what, sample, self.FIX, provider_id=self.provider.id)
