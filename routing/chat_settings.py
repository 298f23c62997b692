"""A chat's own settings: its system prompt and the parameters of its requests.

Each is None until the person sets it: a system prompt left unset follows the
default in Settings, and a parameter left unset is never sent (the server's own
default holds). Values are checked here once, wherever they come from (the chat
settings panel, `sightline ask`'s flags, a stored chat), with one clear message.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from routing.context_window import Overflow

MAX_TEMPERATURE = 2.0  # the widest range the APIs accept (OpenAI's, Gemini's)
MAX_ANSWER_TOKENS = 1_000_000
MAX_CONTEXT_TOKENS = 10_000_000
MAX_SYSTEM_PROMPT = 100_000  # characters; a prompt longer than a book is a paste gone wrong


class SettingsInvalid(ValueError):
    """A setting can't be used; the message says which and what it may be."""


@dataclass(frozen=True)
class ChatSettings:
    """What a chat tells its model first, and how it asks; None: not set here."""

    system_prompt: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None  # the longest answer, in tokens
    context_length: int | None = None  # the context window to load (Ollama's num_ctx)
    # What the chat does once it outgrows the model's window (routing/fitting.py): None
    # follows Settings, whose default leaves out the oldest turns between the first and
    # the newest.
    overflow: Overflow | None = None

    def over(self, below: ChatSettings) -> ChatSettings:
        """These settings, with `below`'s where these leave one unset."""
        chosen = {
            f.name: getattr(self, f.name)
            if getattr(self, f.name) is not None
            else getattr(below, f.name)
            for f in fields(self)
        }
        return ChatSettings(**chosen)

    @property
    def is_empty(self) -> bool:
        """Whether nothing is set."""
        return all(getattr(self, f.name) is None for f in fields(self))

    def to_json(self) -> str:
        """The settings that are set, as stored with the chat ("" when none are)."""
        chosen = {k: v for k, v in asdict(self).items() if v is not None}
        return json.dumps(chosen, ensure_ascii=False) if chosen else ""

    @classmethod
    def from_json(cls, text: str) -> ChatSettings:
        """Stored settings read back; anything unreadable or out of range is left unset."""
        try:
            raw = json.loads(text) if text else {}
        except ValueError:
            return cls()
        if not isinstance(raw, dict):
            return cls()
        kept = cls()
        for name in ("system_prompt", "temperature", "max_tokens", "context_length", "overflow"):
            try:
                kept = replace(kept, **{name: getattr(checked(**{name: raw.get(name)}), name)})
            except SettingsInvalid:
                continue  # a damaged value is dropped, the chat still opens
        return kept


def checked(
    system_prompt: Any = None,
    temperature: Any = None,
    max_tokens: Any = None,
    context_length: Any = None,
    overflow: Any = None,
) -> ChatSettings:
    """Settings from what a person or a file gave, each checked; SettingsInvalid says why."""
    if system_prompt is not None:
        if not isinstance(system_prompt, str):
            raise SettingsInvalid("The system prompt must be text.")
        if len(system_prompt) > MAX_SYSTEM_PROMPT:
            raise SettingsInvalid(
                f"The system prompt is {len(system_prompt):,} characters; "
                f"at most {MAX_SYSTEM_PROMPT:,} are kept."
            )
    return ChatSettings(
        system_prompt=system_prompt,
        temperature=_temperature(temperature),
        max_tokens=_whole(max_tokens, "The maximum answer length", MAX_ANSWER_TOKENS),
        context_length=_whole(context_length, "The context length", MAX_CONTEXT_TOKENS),
        overflow=_overflow(overflow),
    )


def _overflow(value: Any) -> Overflow | None:
    if value is None:
        return None
    try:
        return Overflow(value)
    except ValueError:
        choices = " or ".join(f'"{o.value}"' for o in Overflow)
        raise SettingsInvalid(
            f"What a chat does past the model's window must be {choices}."
        ) from None


def _temperature(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise SettingsInvalid(_TEMPERATURE_RANGE)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise SettingsInvalid(_TEMPERATURE_RANGE) from None
    if not math.isfinite(number) or not 0 <= number <= MAX_TEMPERATURE:
        raise SettingsInvalid(_TEMPERATURE_RANGE)
    return number


_TEMPERATURE_RANGE = (
    f"The temperature must be a number from 0 to {MAX_TEMPERATURE:g} "
    "(0 answers the same way each time; higher varies more)."
)


def _whole(value: Any, what: str, most: int) -> int | None:
    if value is None:
        return None
    said = f"{what} must be a whole number of tokens from 1 to {most:,}."
    if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
        raise SettingsInvalid(said)
    try:
        number = int(str(value).strip().replace("_", "")) if isinstance(value, str) else int(value)
    except (TypeError, ValueError, OverflowError):
        raise SettingsInvalid(said) from None
    if not 1 <= number <= most:
        raise SettingsInvalid(said)
    return number
