"""Which of a chat's settings a model takes, and a request fitted to it.

A chat's settings (its temperature, longest answer and context length) go only to a
model that takes them. A model doesn't take one when its provider's API has no field
for it (the context length is Ollama's), when its provider's documented rule says so
(routing/presets.py: OpenAI's reasoning models and Claude Opus 4.7 on take no
temperature), or when it refused one: a refusal that names the setting becomes a
`ParameterRefused` at the wire's edge, and the model is remembered as not taking it
(the catalogue now, the store across restarts). `fitted` leaves out what a model
doesn't take; `stream_taken` sends a request and, when the model refuses a setting it
carried, says so (`SettingRefused`) and sends it once more without it. A refusal that
names no setting is not asked again.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, replace

from routing.errors import ParameterRefused
from routing.models import ModelInfo, NotTaken
from routing.wires.base import ChatRequest, StreamEvent, Wire

SETTINGS = ("temperature", "max_tokens", "context_length")  # ChatRequest's fields
WORDS = {
    "temperature": "temperature",
    "max_tokens": "longest answer",
    "context_length": "context length",
}
# Why a model doesn't take a setting, as a clause after "it doesn't take it: ".
BECAUSE = {
    NotTaken.API: "its API has no such setting",
    NotTaken.PRESET: "its provider says so",
    NotTaken.LEARNED: "it refused it",
}


def fitted(request: ChatRequest, model: ModelInfo) -> tuple[ChatRequest, tuple[str, ...]]:
    """The request without the settings `model` doesn't take, and which it carried of them."""
    left_out = tuple(s for s in SETTINGS if getattr(request, s) is not None and not model.takes(s))
    return without(request, left_out), left_out


def without(request: ChatRequest, settings: Iterable[str]) -> ChatRequest:
    """The request with these of its settings unset (nothing is sent for them)."""
    gone = set(settings)
    return replace(
        request,
        temperature=None if "temperature" in gone else request.temperature,
        max_tokens=None if "max_tokens" in gone else request.max_tokens,
        context_length=None if "context_length" in gone else request.context_length,
    )


@dataclass(frozen=True)
class SettingRefused:
    """The model refused a setting the request carried (`param`, with the `value` sent): it
    was left out, and the request is being sent again without it."""

    param: str
    value: float | int
    error: ParameterRefused


async def stream_taken(
    wire: Wire, request: ChatRequest
) -> AsyncIterator[StreamEvent | SettingRefused]:
    """The wire's events for `request`; a setting refused before any event is left out and
    the request sent once more (each setting once), told by a `SettingRefused` first."""
    tried: set[str] = set()
    while True:
        started = False
        refused: SettingRefused | None = None
        try:
            async for event in wire.stream(request):
                started = True
                yield event
            return
        except ParameterRefused as error:
            value = getattr(request, error.param, None)
            if started or value is None or error.param in tried:
                raise
            tried.add(error.param)
            refused = SettingRefused(error.param, value, error)
        yield refused
        request = without(request, (refused.param,))
