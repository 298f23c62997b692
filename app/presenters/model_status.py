"""What the chat area says when no model is ready, with no Qt: each provider tried and what
happened, and what to do about it, from the model listing."""

from __future__ import annotations

from typing import NamedTuple

from app.presenters.listing import ModelListing
from routing.endpoints import endpoint_name

LOOKING = "Looking for models…"
NOTHING_READY = "No model is ready"


class Explanation(NamedTuple):
    """The words of the panel: a title, what was tried, and what to do (a named tuple: a
    start makes one before its first paint, and a dataclass compiles its methods as it is
    defined)."""

    title: str
    tried: tuple[tuple[str, str], ...] = ()  # (where, what happened) per provider
    advice: str = ""


def explain(listing: ModelListing) -> Explanation:
    """Put a failed (or running) model listing into words a person can act on."""
    if listing.listing:
        return Explanation(LOOKING)
    statuses = {s.provider.id: s for s in listing.statuses}
    tried: list[tuple[str, str]] = []
    empty_ollama = False
    for provider in listing.providers:
        status = statuses.get(provider.id)
        if status is None:
            outcome = "did not answer"
        elif status.error is not None:
            outcome = status.error.message
        else:
            outcome = "answered, but offers no models"
            empty_ollama = empty_ollama or provider.kind == "ollama"
        tried.append((f"{endpoint_name(provider.base_url)} ({provider.id})", outcome))
    if not listing.providers:
        tried.append(("No provider", "none is configured, and looking for local ones is off."))
    # What a provider's own error already said (how to start Ollama, say) is not said again.
    said = " ".join(outcome for _, outcome in tried)
    steps = (
        []
        if "ollama serve" in said
        else ["Start Ollama with `ollama serve` (or set OLLAMA_HOST to where it runs)"]
    )
    steps.append(f"add a provider in Settings ▸ Providers (saved to {listing.config_path})")
    advice = " or ".join(steps) + "."
    advice = advice[0].upper() + advice[1:]
    if empty_ollama:
        advice = "Download a model with `ollama pull llama3.2`, then try again. " + advice
    return Explanation(NOTHING_READY, tuple(tried), advice)
