"""`ModelListing`: the models every provider offered, and how asking them went."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from app import paths

if TYPE_CHECKING:
    from routing.catalogue import ProviderStatus
    from routing.models import ModelInfo, ProviderConfig


@dataclass(frozen=True)
class ModelListing:
    """What the picker and the no-provider message show: the models and how listing went."""

    models: tuple[ModelInfo, ...] = ()
    statuses: tuple[ProviderStatus, ...] = ()
    providers: tuple[ProviderConfig, ...] = ()
    listing: bool = False
    config_path: Path = field(default_factory=paths.config_file)
    check_sight: bool = True  # a model nobody says sees is checked before its first picture
    vision_model: str = ""  # the configured describer, which a blind model's cards name

    @property
    def nothing_ready(self) -> bool:
        """True once listing is over and no provider offered a model."""
        return not self.listing and not self.models
