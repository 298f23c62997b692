"""`ModelListing`: the models every provider offered, and how asking them went."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from routing.catalogue import ProviderStatus
    from routing.models import ModelInfo, ProviderConfig


class ModelListing(NamedTuple):
    """What the picker and the no-provider message show: the models and how listing went.

    A named tuple: a start defines and makes one before its first paint, where a frozen
    dataclass takes about 1 ms to define (it compiles its methods).
    """

    config_path: Path  # where the settings are saved, which the no-provider message names
    models: tuple[ModelInfo, ...] = ()
    statuses: tuple[ProviderStatus, ...] = ()
    providers: tuple[ProviderConfig, ...] = ()
    listing: bool = False
    check_sight: bool = True  # a model nobody says sees is checked before its first picture
    vision_model: str = ""  # the configured describer, which a blind model's cards name

    @property
    def nothing_ready(self) -> bool:
        """True once listing is over and no provider offered a model."""
        return not self.listing and not self.models
