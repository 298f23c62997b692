"""What a person can do about a failed turn, in plain words, by the kind of failure.

An error notice says what went wrong (the error's message); its details add the
provider's own words and one of these. They name places in the window (Settings,
Retry) because the window is where details are read; nothing here speaks of
command-line flags.
"""

from __future__ import annotations

from routing.errors import ProviderError, QuotaExhausted

REMEDIES: dict[str, str] = {
    "connect": (
        "Check that the server is running and that its address in Settings ▸ Providers is "
        "right, then press Retry."
    ),
    "proxy": "Fix the proxy setting of this computer (or turn it off), then press Retry.",
    "timeout": "Press Retry; a smaller model answers sooner.",
    "auth": "Enter or replace the key in Settings ▸ Providers, then press Retry.",
    "rate_limit": "Wait a little, then press Retry.",
    "quota": "Add credit or raise the limit with the provider; waiting won't help.",
    "server": "Press Retry; if it keeps failing, the server's log says more.",
    "overloaded": "The provider is busy: press Retry in a minute, or choose another model.",
    "context": (
        "The conversation is longer than this model can read: start a new chat, delete "
        "old messages, or choose a model with a longer context."
    ),
    "images": "Choose a model that sees, or press Retry to have the pictures described.",
    "model": "Choose another model in the picker; the model list shows what is installed.",
    "request": "Press Retry with another model; the provider's words above say what it refused.",
    "malformed": "The server answered in a way Sightline can't read: press Retry, or update it.",
    "too_large": "Remove an attachment or two (or make them smaller), then press Retry.",
    "answer_cut": (
        "Ask for a shorter answer (or set a longest answer in the chat's settings), then "
        "press Retry."
    ),
    "turn_limit": (
        "Press Retry, or ask for less at once; turn_seconds in the provider's config gives "
        "its turns longer."
    ),
}
DEFAULT = "Press Retry, or choose another model."


def details_of(error: ProviderError | Exception) -> str:
    """An error notice's details: the provider's own words, and what to do."""
    kind = "quota" if isinstance(error, QuotaExhausted) else str(getattr(error, "kind", ""))
    said = str(getattr(error, "detail", "") or "").strip()
    lines = [f"The provider said: {said}"] if said else []
    lines.append(f"What to do: {REMEDIES.get(kind, DEFAULT)}")
    return "\n".join(lines)
