"""A model's window and where it came from (routing/context_window.py): the numbers every
provider's refusal states, the order of the sources, and Ollama's window to load."""

from __future__ import annotations

import pytest

from routing.context_window import (
    DEFAULT_WINDOW,
    ContextFrom,
    answer_room,
    ollama_window,
    resolved_window,
    stated_window,
)

GIB = 1 << 30


@pytest.mark.parametrize(
    ("words", "window"),
    [
        (  # llama-cpp-python and OpenAI
            "This model's maximum context length is 2048 tokens. However, you requested 2030 "
            "tokens (2010 in the messages, 20 in the completion).",
            2048,
        ),
        (  # upstream llama.cpp's body
            '{"error": {"code": 400, "message": "the request exceeds the available context '
            'size, try increasing it", "type": "exceed_context_size_error", '
            '"n_prompt_tokens": 5000, "n_ctx": 4096}}',
            4096,
        ),
        ("prompt is too long: 210000 tokens > 200000 maximum", 200_000),  # Anthropic
        (  # Gemini
            "The input token count (1200000) exceeds the maximum number of tokens allowed "
            "(1048576).",
            1_048_576,
        ),
        (
            "Prompt contains 40000 tokens, too large for model with 32768 maximum context length",
            32768,
        ),
        ("Input length 9000 exceeds context length 8192", 8192),  # LM Studio
        ("Reached context length of 4096 tokens", 4096),  # LM Studio
        ("maximum context length is 128,000 tokens", 128_000),
    ],
)
def test_every_provider_s_refusal_states_its_window(words: str, window: int) -> None:
    assert stated_window(words) == window


@pytest.mark.parametrize(
    "words",
    ["prompt is too long", "context_length_exceeded", "the maximum context length is 12 tokens"],
)
def test_a_refusal_without_a_believable_number_states_none(words: str) -> None:
    assert stated_window(words) is None


def test_a_learned_window_outranks_the_server_and_the_listing() -> None:
    assert resolved_window("custom", "m", 8192, ContextFrom.SERVER, 2048) == (
        2048,
        ContextFrom.LEARNED,
    )
    assert resolved_window("custom", "m", 8192, ContextFrom.SERVER, None) == (
        8192,
        ContextFrom.SERVER,
    )


def test_a_window_nobody_states_comes_from_the_provider_s_rule_else_the_default() -> None:
    assert resolved_window("openai", "gpt-4o-mini", None, ContextFrom.LISTING, None) == (
        128_000,
        ContextFrom.PRESET,
    )
    assert resolved_window("custom", "m", None, ContextFrom.LISTING, None) == (
        DEFAULT_WINDOW,
        ContextFrom.DEFAULT,
    )


@pytest.mark.parametrize(
    ("trained", "memory", "window"),
    [
        (131072, 4 * GIB, 4096),
        (131072, 12 * GIB, 8192),
        (131072, 24 * GIB, 16384),
        (131072, 64 * GIB, 32768),
        (2048, 64 * GIB, 2048),  # never more than it was trained for
        (None, 64 * GIB, DEFAULT_WINDOW),
        (131072, None, 32768),
    ],
)
def test_ollama_loads_the_trained_length_within_this_machine_s_memory(
    trained: int | None, memory: int | None, window: int
) -> None:
    assert ollama_window(trained, memory) == window


def test_the_answer_s_room_is_the_chat_s_longest_answer_or_a_quarter() -> None:
    assert answer_room(2048, None) == 512
    assert answer_room(200_000, None) == 2048
    assert answer_room(2048, 300) == 300
    assert answer_room(2048, 5000) == 1024  # never more than half the window
