"""The most of one answer a wire gives out or holds (routing/wires/answer_cap.py).

Words are cut to fit the cap and the answer ends there; what a wire holds until the
end (a tool call's argument fragments, thoughts to send back, reasoning items) counts
against the same cap, so a stream of fragments without end fails instead of growing.
The whole path through each wire and a loopback server that never stops answering:
tests/routing/wires/test_hostile_servers.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from routing.errors import AnswerCut
from routing.models import ProviderConfig
from routing.wires import answer_cap, anthropic, gemini_stream, openai_chat, responses
from routing.wires.answer_cap import AnswerCap
from routing.wires.base import Done, TextDelta, Usage

SERVER = "http://127.0.0.1:9"


def cap(limit: int) -> AnswerCap:
    return AnswerCap(limit, server="127.0.0.1:9", provider_id="p")


def test_words_within_the_cap_pass_as_they_are() -> None:
    answer = cap(10)
    assert answer.fit(TextDelta("hello")) == TextDelta("hello")
    assert answer.fit(TextDelta("world")) == TextDelta("world")  # exactly full: not cut
    assert not answer.over
    assert answer.fit(Done("stop")) == Done("stop")


def test_words_past_the_cap_are_cut_to_fit_and_end_the_answer() -> None:
    answer = cap(8)
    assert answer.fit(TextDelta("hello")) == TextDelta("hello")
    assert answer.fit(Usage(1, 2)) == Usage(1, 2)  # what isn't words passes
    assert answer.fit(TextDelta("world")) == TextDelta("wor")
    assert answer.over and answer.given == 8
    assert answer.fit(TextDelta("more")) is None
    assert answer.cut().message == (
        "The answer from 127.0.0.1:9 was cut at 8 characters, the most Sightline keeps of "
        "one answer; what came before is kept."
    )


def test_a_full_answer_given_more_words_is_over() -> None:
    answer = cap(5)
    assert answer.fit(TextDelta("hello")) == TextDelta("hello")
    assert answer.fit(TextDelta("!")) is None
    assert answer.over


# -- what a wire holds -----------------------------------------------------------


def _openai(state: Any) -> None:
    fragment = {"index": 0, "id": "c1", "function": {"name": "f", "arguments": "x" * 40}}
    openai_chat.parse_chunk({"choices": [{"delta": {"tool_calls": [fragment]}}]}, state)


def _anthropic(state: Any) -> None:
    if not state.tools:
        start = {"type": "content_block_start", "index": 0}
        start["content_block"] = {"type": "tool_use", "id": "t", "name": "f", "input": {}}
        anthropic.parse_event("content_block_start", json.dumps(start), state)
    delta = {"type": "input_json_delta", "partial_json": "x" * 40}
    data = {"type": "content_block_delta", "index": 0, "delta": delta}
    anthropic.parse_event("content_block_delta", json.dumps(data), state)


def _responses_arguments(state: Any) -> None:
    event = {"type": "response.function_call_arguments.delta", "item_id": "fc", "delta": "x" * 40}
    responses.parse_event(event, state)


def _responses_reasoning(state: Any) -> None:
    item = {"type": "reasoning", "id": "rs", "encrypted_content": "x" * 40}
    responses.parse_event({"type": "response.output_item.done", "item": item}, state)


def _gemini_thoughts(state: Any) -> None:
    part = {"text": "x" * 40, "thought": True}
    gemini_stream.parse_chunk({"candidates": [{"content": {"parts": [part]}}]}, state)


def _state(kind: str) -> Any:
    provider = ProviderConfig("p", "custom", SERVER)
    if kind == "openai":
        return openai_chat.StreamState(provider=provider)
    if kind == "anthropic":
        return anthropic.StreamState(provider=provider)
    if kind.startswith("responses"):
        return responses.StreamState(provider=provider, source="p:m")
    return gemini_stream.StreamState(provider=provider, source="p:m")


FEEDS: dict[str, Callable[[Any], None]] = {
    "openai": _openai,
    "anthropic": _anthropic,
    "responses arguments": _responses_arguments,
    "responses reasoning": _responses_reasoning,
    "gemini thoughts": _gemini_thoughts,
}


@pytest.mark.parametrize("kind", FEEDS)
def test_what_a_wire_holds_without_end_is_cut(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(answer_cap, "ANSWER_CHARS", 1000)
    state, feed = _state(kind), FEEDS[kind]
    for _ in range(10):  # 400 characters (a reasoning item's framing too: under 1,000)
        feed(state)
    with pytest.raises(AnswerCut) as raised:
        for _ in range(30):
            feed(state)
    assert "127.0.0.1:9 was cut at 1,000 characters" in raised.value.message
    assert state.held <= 1000 + 200  # what was held when it stopped: the cap and one piece


def test_gemini_s_shown_words_are_left_to_the_cap_on_what_is_given_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(answer_cap, "ANSWER_CHARS", 100)
    state = _state("gemini")
    for _ in range(10):  # 400 characters of words: held to send back, bounded where given out
        events = gemini_stream.parse_chunk(
            {"candidates": [{"content": {"parts": [{"text": "x" * 40}]}}]}, state
        )
        assert events == [TextDelta("x" * 40)]
    assert state.held == 0
