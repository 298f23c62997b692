"""The contract every wire keeps: list models, and stream one request as events."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from routing.errors import ProviderError
from routing.models import ModelInfo, ProviderConfig
from routing.transcript import CarriedPart, Message, ToolCall


@dataclass(frozen=True)
class ToolSpec:
    """A tool offered to a model: its name, what it does, and a JSON Schema of its arguments."""

    name: str
    description: str
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )


@dataclass(frozen=True)
class ToolChoice:
    """Whether the model must call a tool this request: "auto" (it chooses), "none" (it
    answers in words), "required" (it calls one of the request's tools), or a tool `name`d
    (it calls that one; `mode` "required"). Each wire says it in its API's own form; an
    API that has no such field can't be made to (Ollama's: routing/wires/ollama.py)."""

    mode: Literal["auto", "none", "required"] = "auto"
    name: str | None = None  # a tool of the request's, which it must call

    @classmethod
    def named(cls, name: str) -> ToolChoice:
        """The model must call the tool of this name."""
        return cls("required", name)

    @property
    def forces(self) -> bool:
        """Whether the model is made to call a tool ("required", or one named)."""
        return self.mode == "required"


@dataclass(frozen=True)
class ChatRequest:
    """Everything a wire needs to ask a model once."""

    model: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    system: str = ""  # the person's system prompt (or the describer's), in the API's own place
    # The chat's parameters; None leaves each to the server (nothing is sent).
    temperature: float | None = None
    max_tokens: int | None = None  # the longest answer, in tokens
    context_length: int | None = None  # the context window to load (Ollama's num_ctx)
    # None: nothing sent, the API's default (the model chooses). Sent only with `tools`,
    # as every API refuses a choice of tools it wasn't offered.
    tool_choice: ToolChoice | None = None


@dataclass(frozen=True)
class TextDelta:
    """More words of the answer."""

    text: str


@dataclass(frozen=True)
class ToolCallEvent:
    """A whole tool call (wires join fragments before emitting it)."""

    call: ToolCall


@dataclass(frozen=True)
class Usage:
    """Tokens the request cost, as the provider counted them."""

    input_tokens: int = 0
    output_tokens: int = 0
    # The server's own time generating the output (Ollama's eval_duration, llama.cpp's
    # timings), truer for a short answer than a clock on this side; 0: not said.
    generating_seconds: float = 0.0


@dataclass(frozen=True)
class Done:
    """The model finished; `reason` is the provider's own word (stop, length, tool_calls)."""

    reason: str = "stop"


@dataclass(frozen=True)
class Carried:
    """Something the wire needs on the answer to send it back later (a reasoning item, a
    thought signature): kept with the answer's message, never shown."""

    part: CarriedPart


StreamEvent = TextDelta | ToolCallEvent | Usage | Done | Carried


class Wire(Protocol):
    """One API shape bound to one provider."""

    provider: ProviderConfig

    async def list_models(self) -> list[ModelInfo]:
        """Every model the provider offers, with sight and tools where it says."""
        ...

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Send the request and yield its events; raise a `ProviderError` on failure."""
        ...

    async def aclose(self) -> None:
        """Close the wire's HTTP client."""
        ...


@runtime_checkable
class WindowCheck(Protocol):
    """A wire that can ask, without streaming, whether a request fits its model's window
    (a server whose stream past the window ends empty says so only to such a request)."""

    async def window_refusal(self, request: ChatRequest) -> ProviderError | None:
        """The provider's refusal of the request asked without streaming, or None."""
        ...


@runtime_checkable
class UnforcedTools(Protocol):
    """A wire whose API has no tool choice (Ollama's): it can't make its model call a tool.
    A request that must call one goes with only the tool it names (every tool, for any
    call), and the model may still answer in words; the turn says so."""

    def offered_under(self, request: ChatRequest) -> tuple[ToolSpec, ...]:
        """The tools the request's body offers, its tool choice taken as far as it can be."""
        ...


@runtime_checkable
class OneModel(Protocol):
    """A wire that can describe one named model without listing them all (Ollama's
    /api/show): a turn on a named model then costs one request, not one per model."""

    async def one_model(self, name: str) -> ModelInfo | None:
        """The model as a listing would say it, or None when the server has no such model
        or can't say (the whole listing then tells what there is)."""
        ...


@runtime_checkable
class TokenCounter(Protocol):
    """A wire whose server counts tokens as its model does (llama.cpp's servers)."""

    async def count_tokens(self, text: str, model: str) -> int | None:
        """The server's count of `text`, or None where it has no counter."""
        ...
