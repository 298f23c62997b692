"""A provider's connection test (Settings ▸ Providers ▸ Test), with no Qt: its models
listed with a catalogue of its own, and the result in plain words."""

from __future__ import annotations

from typing import TYPE_CHECKING

from routing.models import ProviderConfig

if TYPE_CHECKING:
    from routing.catalogue import ProviderStatus
    from routing.models import ModelInfo


SHOWN_MODELS = 8  # names in a test's result; the picker lists them all


def shown_models(status: ProviderStatus) -> tuple[list[ModelInfo], int]:
    """The models a test result names, and how many more there are."""
    models = list(status.models)
    return models[:SHOWN_MODELS], max(0, len(models) - SHOWN_MODELS)


def listing_words(status: ProviderStatus) -> str:
    """A connection test's result in plain words: the models found, or what went wrong."""
    if status.error is not None:
        return status.error.message
    if not status.models:
        return "Connected, but it offers no models yet."
    models, more = shown_models(status)
    count = len(status.models)
    names = ", ".join(m.name + (" (sees)" if m.sees else "") for m in models)
    return f"Found {count} model{'s' if count != 1 else ''}: {names}" + ("…" if more else "")


async def list_provider(provider: ProviderConfig) -> ProviderStatus:
    """List one provider's models with a catalogue of its own, closed afterwards."""
    from routing.catalogue import Catalogue

    catalogue = Catalogue([provider])
    try:
        return (await catalogue.refresh([provider.id]))[provider.id]
    finally:
        await catalogue.aclose()
