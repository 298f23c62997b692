"""Who answers a turn: plain functions over the catalogue, each giving its reason."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from routing.errors import CannotConnect
from routing.models import ModelInfo

AUTO = "auto"


@dataclass(frozen=True)
class Choice:
    """The model that answers, why, and whether Sightline (not the person) chose it."""

    model: ModelInfo
    reason: str
    by_sightline: bool

    def where(self) -> str:
        """Where the model runs, in words."""
        return "on this computer" if self.model.local else "in the cloud"


def is_auto(requested: str) -> bool:
    """Whether the person left the choice to Sightline."""
    return not requested or requested.strip().lower() == AUTO


def choose_auto(
    models: Sequence[ModelInfo], *, has_pictures: bool, allow_cloud: bool = False
) -> Choice:
    """Auto: a ready local model first; with pictures, a local one that sees."""
    local = [m for m in models if m.local]
    if has_pictures:
        seeing = [m for m in local if m.sees]
        if seeing:
            return Choice(seeing[0], "it runs on this computer and sees pictures", True)
    if local:
        return Choice(local[0], "it is the first ready model on this computer", True)
    if allow_cloud and models:
        return Choice(models[0], "no model on this computer is ready", True)
    raise CannotConnect(
        "No model on this computer is ready. Start Ollama (`ollama serve`) and pull a "
        "model, or choose a model with --model PROVIDER:MODEL."
    )
