"""Gemini's stream read: each event a whole `GenerateContentResponse` as events.

Text parts become words (a thought's are not shown), whole `functionCall` parts tool
calls, `usageMetadata` the usage (the last counts), a candidate's `finishReason` the
end. The answer's parts are kept, merged, to send back to the same model (its signed
ones, `thoughtSignature`, must go back as they came); what a stream holds of them
counts against the answer's cap (routing/wires/answer_cap.py). The wire is
routing/wires/gemini.py.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from typing import Any

from routing.errors import ProviderError
from routing.transcript import CarriedPart, ToolCall
from routing.wires.answer_cap import hold
from routing.wires.base import Carried, Done, StreamEvent, TextDelta, ToolCallEvent, Usage
from routing.wires.gemini_errors import classify_gemini
from routing.wires.gemini_request import INVENTED, SHAPE
from routing.wires.payload import token_count, too_deep
from routing.wires.stream_state import StreamState as BaseState


@dataclass(kw_only=True)
class StreamState(BaseState):
    """What one stream has said so far: the parts to carry, the end, the usage."""

    FORMAT = "Gemini's format"
    FIX = 'the Gemini API, or set api = "chat" for an OpenAI-compatible one'

    source: str  # provider:model, the signed parts' owner
    parts: list[dict[str, Any] | _Run] = field(default_factory=list)  # the answer's, merged
    signed: bool = False  # any part came with a thoughtSignature
    calls: int = 0
    finish_reason: str = ""
    usage: Usage | None = None

    def kept_parts(self) -> list[dict[str, Any]]:
        """The answer's parts as they go back to Gemini, each run of words joined."""
        return [p.part() if isinstance(p, _Run) else p for p in self.parts]


@dataclass
class _Run:
    """Words that join into one part, kept as their pieces and joined once at the end:
    joining them at each chunk copied the answer so far, so a long answer read slower
    and slower (about 225 chunks a second by 20,000)."""

    thought: Any  # the part's `thought`, as it came (None when it had none)
    pieces: list[str]
    signature: Any = None  # its `thoughtSignature` (None when it had none)

    def part(self) -> dict[str, Any]:
        """The run as one of Gemini's parts."""
        part: dict[str, Any] = {"text": "".join(self.pieces)}
        if self.thought is not None:
            part["thought"] = self.thought
        if self.signature is not None:
            part["thoughtSignature"] = self.signature
        return part


def _keep_text(part: dict[str, Any], state: StreamState) -> None:
    """Words join the part before them, unless a signature or a thought sets them apart."""
    text, signature = str(part["text"]), part.get("thoughtSignature")
    if part.get("thought"):  # the shown words are bounded as they are given out (AnswerCap)
        hold(state, len(text))
    last = state.parts[-1] if state.parts else None
    if (
        isinstance(last, _Run)
        and bool(last.thought) == bool(part.get("thought"))
        and not (last.signature is not None and signature is not None)
    ):
        last.pieces.append(text)
        if signature is not None:
            last.signature = signature
        return
    state.parts.append(_Run(part.get("thought"), [text], signature))


def _call(part: dict[str, Any], state: StreamState) -> ToolCallEvent:
    call = part["functionCall"]
    if not isinstance(call, dict) or not isinstance(call.get("name"), str) or not call["name"]:
        raise state.malformed("a function call without a name", json.dumps(part))
    args = call.get("args")
    arguments = args if isinstance(args, dict) else {"_raw": json.dumps(args)}
    given = call.get("id")
    call_id = given if isinstance(given, str) and given else f"{INVENTED}{secrets.token_hex(6)}"
    # Kept without its arguments: they go back as Sightline keeps them (bounded).
    kept: dict[str, Any] = {
        "functionCall": {"name": call["name"], **({"id": given} if given else {})}
    }
    if "thoughtSignature" in part:
        kept["thoughtSignature"] = part["thoughtSignature"]
    state.parts.append(kept)
    state.calls += 1
    return ToolCallEvent(ToolCall(call_id, call["name"], arguments))


def _flat(part: dict[str, Any]) -> bool:
    """Whether a part holds nothing nested (words, a flag, a signature): no depth to check."""
    return all(isinstance(value, str | bool | int | float) for value in part.values())


def parse_chunk(obj: Any, state: StreamState) -> list[StreamEvent]:
    """The events of one streamed GenerateContentResponse."""
    if not isinstance(obj, dict):
        raise state.malformed("a chunk that is not a JSON object", json.dumps(obj))
    if obj.get("error") is not None:
        raise classify_gemini(
            state.provider,
            state.preset,
            200,
            json.dumps(obj),
            {},
            had_pictures=state.had_pictures,
            model=state.model,
        )
    usage = obj.get("usageMetadata")
    if isinstance(usage, dict):  # cumulative: the last one counts
        output = token_count(usage.get("candidatesTokenCount")) + token_count(
            usage.get("thoughtsTokenCount")
        )
        counted = Usage(token_count(usage.get("promptTokenCount")), output)
        if counted != state.usage:  # the same counts again are no progress
            state.usage = counted
            state.taken += 1
    candidates = obj.get("candidates") or []
    feedback = obj.get("promptFeedback")
    if not candidates and isinstance(feedback, dict) and feedback.get("blockReason"):
        raise ProviderError(
            f"Gemini would not answer this message (blocked: {feedback['blockReason']}). "
            "Say it differently, or pick another model.",
            provider_id=state.provider.id,
            detail=json.dumps(obj)[:2000],
        )
    if not isinstance(candidates, list):
        raise state.malformed("candidates that are not a list", json.dumps(obj))
    events: list[StreamEvent] = []
    for candidate in candidates:
        if not isinstance(candidate, dict) or candidate.get("index", 0) != 0:
            continue  # one candidate is all that is asked for
        content = candidate.get("content") or {}
        for part in content.get("parts") or [] if isinstance(content, dict) else []:
            if not isinstance(part, dict) or (not _flat(part) and too_deep(part)):
                continue
            state.signed = state.signed or "thoughtSignature" in part
            if "functionCall" in part:
                events.append(_call(part, state))
            elif isinstance(part.get("text"), str):
                _keep_text(part, state)
                if part.get("thought"):
                    state.taken += 1  # thoughts are not shown, but the model is at work
                elif part["text"]:
                    events.append(TextDelta(part["text"]))
        if reason := candidate.get("finishReason"):
            state.finish_reason = str(reason)
    return events


def finish_stream(state: StreamState) -> list[StreamEvent]:
    """The closing events: the signed parts to carry, usage, Done."""
    events: list[StreamEvent] = []
    if state.signed:
        events.append(Carried(CarriedPart(SHAPE, state.source, {"parts": state.kept_parts()})))
    if state.usage is not None:
        events.append(state.usage)
    events.append(Done("tool_calls" if state.calls else state.finish_reason.lower()))
    return events
