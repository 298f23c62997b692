"""A chat's settings: checked once with clear words, layered, kept as JSON."""

from __future__ import annotations

import json
from dataclasses import asdict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from routing.chat_settings import ChatSettings, SettingsInvalid, checked


def test_values_from_text_are_read_as_numbers() -> None:
    assert checked(temperature="0.7", max_tokens="2_000", context_length=8192) == ChatSettings(
        temperature=0.7, max_tokens=2000, context_length=8192
    )


@pytest.mark.parametrize(
    ("given_", "words"),
    [
        ({"temperature": "warm"}, "temperature must be a number from 0 to 2"),
        ({"temperature": -0.1}, "from 0 to 2"),
        ({"temperature": 2.5}, "from 0 to 2"),
        ({"temperature": float("nan")}, "from 0 to 2"),
        ({"temperature": True}, "from 0 to 2"),
        ({"max_tokens": 0}, "maximum answer length must be a whole number of tokens"),
        ({"max_tokens": 1.5}, "whole number"),
        ({"max_tokens": "lots"}, "whole number"),
        ({"context_length": 10**12}, "context length must be a whole number"),
        ({"system_prompt": 5}, "system prompt must be text"),
        ({"system_prompt": "x" * 100_001}, "at most 100,000"),
    ],
)
def test_a_bad_value_is_refused_in_plain_words(given_: dict, words: str) -> None:
    with pytest.raises(SettingsInvalid, match=words):
        checked(**given_)


def test_a_turn_over_its_chat_over_the_defaults() -> None:
    defaults = ChatSettings(system_prompt="Be brief.")
    chat = ChatSettings(temperature=0.2)
    turn = ChatSettings(temperature=0.9, max_tokens=100)
    assert turn.over(chat).over(defaults) == ChatSettings("Be brief.", 0.9, 100, None)
    # An empty system prompt of the chat's own wins over the default: it says "none".
    assert ChatSettings(system_prompt="").over(defaults).system_prompt == ""


def test_json_round_trip_keeps_only_what_is_set() -> None:
    assert ChatSettings().to_json() == ""
    kept = ChatSettings(system_prompt="Réponds en français.", max_tokens=512)
    assert ChatSettings.from_json(kept.to_json()) == kept
    assert "temperature" not in kept.to_json()


# Stored settings as a damaged row may hold them: any text, and objects of any values.
STORED = st.text(max_size=200) | st.dictionaries(
    st.sampled_from(["system_prompt", "temperature", "max_tokens", "context_length", "x"]),
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
).map(json.dumps)


@given(STORED)
def test_any_stored_text_reads_back_as_settings_that_store_the_same(text: str) -> None:
    read = ChatSettings.from_json(text)
    assert checked(**asdict(read)) == read  # every value kept is one the checks allow
    assert ChatSettings.from_json(read.to_json()) == read


def test_a_damaged_value_is_dropped_and_the_rest_kept() -> None:
    read = ChatSettings.from_json('{"temperature": 9, "max_tokens": 64, "system_prompt": 3}')
    assert read == ChatSettings(max_tokens=64)
