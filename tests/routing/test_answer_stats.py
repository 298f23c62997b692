"""An answer's stats in words and in JSON: only what is known, never a guess."""

from __future__ import annotations

import math
from typing import Any

import pytest

from routing.answer_stats import MIN_RATE_SECONDS, AnswerStats, stats_words


def test_everything_known_reads_as_one_short_line() -> None:
    stats = AnswerStats(12, 148, first_token_seconds=0.43, streaming_seconds=4.2)
    assert stats_words(stats) == "12 → 148 tokens · first word 0.4 s · 35 tok/s"
    assert stats_words(stats, spoken=True) == (
        "12 tokens in, 148 out, first word after 0.4 seconds, 35 tokens a second"
    )


@pytest.mark.parametrize(
    ("stats", "words"),
    [
        (AnswerStats(input_tokens=12), "12 tokens in"),
        (AnswerStats(output_tokens=148), "148 tokens out"),
        (AnswerStats(first_token_seconds=12.34), "first word 12 s"),
        (AnswerStats(output_tokens=15, streaming_seconds=2.0), "15 tokens out · 7.5 tok/s"),
        # No count from the provider: no rate, however long it streamed.
        (AnswerStats(first_token_seconds=0.2, streaming_seconds=3.0), "first word 0.2 s"),
        (AnswerStats(), ""),
    ],
)
def test_what_isnt_known_is_left_out(stats: AnswerStats, words: str) -> None:
    assert stats_words(stats) == words


def test_a_stream_that_came_in_one_read_has_no_rate() -> None:
    burst = AnswerStats(output_tokens=30, streaming_seconds=MIN_RATE_SECONDS / 10)
    assert burst.tokens_per_second is None
    assert AnswerStats(output_tokens=30, streaming_seconds=1.5).tokens_per_second == 20.0


def test_json_keeps_only_what_is_known_and_reads_back_equal() -> None:
    stats = AnswerStats(12, None, first_token_seconds=0.25, streaming_seconds=None)
    assert stats.to_json() == {"input_tokens": 12, "first_token_seconds": 0.25}
    assert AnswerStats.from_json(stats.to_json()) == stats
    assert AnswerStats.from_json({}) is None


@pytest.mark.parametrize(
    "data",
    [
        None,
        [12, 148],
        {"input_tokens": "12"},
        {"output_tokens": True},
        {"input_tokens": -1},
        {"first_token_seconds": math.nan},
        {"streaming_seconds": -0.5},
        {"streaming_seconds": "fast"},
    ],
)
def test_values_of_the_wrong_kind_read_as_unknown(data: Any) -> None:
    assert AnswerStats.from_json(data) is None


def test_a_good_value_is_kept_beside_a_bad_one() -> None:
    assert AnswerStats.from_json({"input_tokens": 7, "output_tokens": "x"}) == AnswerStats(7)
