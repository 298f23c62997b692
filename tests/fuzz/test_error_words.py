"""A provider's failure, whatever its status, body and headers, becomes one of our errors.

The refusal classifier reads any text without raising and finds its markers
wherever they sit; `translate_status` and each wire's own classifier turn any
status, body and headers into a ProviderError whose message is for a person (the
provider's words stay in `detail`); a wait read from headers is never NaN or infinite.
"""

from __future__ import annotations

import json
import math
import string

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from routing import refusals
from routing.errors import (
    BadRequest,
    ContextTooLong,
    KeyProblem,
    Overloaded,
    PicturesRefused,
    ProviderError,
    RateLimited,
)
from routing.models import ProviderConfig
from routing.presets import PRESETS, Preset
from routing.refusals import ANTHROPIC_WORDS, OLLAMA_WORDS, OPENAI_WORDS, Words
from routing.wires import anthropic_errors, ollama_errors
from routing.wires.openai_errors import error_words, parse_error_body, translate_status
from routing.wires.retry import retry_after_seconds
from tests.fuzz.strategies import FUZZ, JSON, JUNK_TEXT, dumps, known_bugs, shaped

PROVIDER = ProviderConfig("fuzz", "custom", "http://127.0.0.1:9/v1")
STATUSES = st.integers(min_value=100, max_value=599) | st.sampled_from([0, 200, 429, 529, 999])
TEXTS = st.text(max_size=80)
DEEP = "[" * 3000 + "]" * 3000

# Headers the wait is read from, with values real servers send and values none should.
WAITS = st.sampled_from(
    ["0", "1", "2.5", "20ms", "6m0s", "1m30.5s", "-3", "soon", "nan", "inf", "1e400"]
) | st.text(max_size=12)
HTTP_DATES = st.datetimes().map(lambda d: d.strftime("%a, %d %b %Y %H:%M:%S GMT")) | st.just(
    "Mon, 01 Jan 99999 00:00:00 GMT"
)
HEADERS = st.dictionaries(
    st.sampled_from(
        [
            "retry-after",
            "Retry-After",
            "retry-after-ms",
            "x-ratelimit-reset-requests",
            "x-ratelimit-reset-tokens",
            "content-type",
        ]
    ),
    WAITS | HTTP_DATES,
    max_size=3,
)


def finite_wait(value: str) -> bool:
    """Whether a header value stays clear of the known NaN/inf/out-of-range bugs."""
    try:
        return math.isfinite(float(value))
    except ValueError:
        return "99999" not in value


GUARD_HEADERS = HEADERS.filter(lambda headers: all(finite_wait(v) for v in headers.values()))

# Error bodies in each provider's shape (OpenAI, Anthropic, Ollama, FastAPI, Gemini's list).
ERROR_OBJECT = shaped(
    {
        "message": TEXTS | JSON,
        "type": TEXTS | JSON,
        "code": st.integers() | TEXTS | JSON,
        "param": JSON,
        "metadata": shaped({"raw": TEXTS | JSON}) | JSON,
    }
)
BODY = shaped(
    {"error": ERROR_OBJECT | TEXTS | JSON, "message": TEXTS, "object": JSON, "detail": JSON}
)
BODIES = (
    BODY.map(dumps)
    | st.lists(BODY, max_size=2).map(dumps)
    | JSON.map(dumps)
    | JUNK_TEXT
    | st.sampled_from(["<!DOCTYPE html><title>Sign in</title>", "Unexpected endpoint or method."])
)

TRANSLATION_BUGS = known_bugs(
    "routing/wires/http_errors.py: retry_after_seconds returns NaN/inf for retry-after "
    "'nan'/'inf'/'1e400', and translate_status's _seconds() then round()s it (ValueError, "
    "OverflowError)",
    "parse_error_body catches ValueError but not the RecursionError of deeply nested JSON "
    "(and error_words recurses into nested lists without a bound)",
)


def is_ours(error: object, provider_id: str = "fuzz") -> None:
    """A ProviderError of our tree, with a message and the provider it came from."""
    assert isinstance(error, ProviderError)
    assert isinstance(error.message, str) and error.message.strip()
    assert error.provider_id == provider_id
    assert isinstance(error.detail, str)


# -- the refusal classifier ----------------------------------------------------------


SHAPES = st.sampled_from([OPENAI_WORDS, OLLAMA_WORDS, ANTHROPIC_WORDS])


@FUZZ
@given(STATUSES, TEXTS | JUNK_TEXT, st.booleans(), SHAPES)
def test_the_classifier_reads_any_text(
    status: int, text: str, had_pictures: bool, words: Words
) -> None:
    said = classified(status, text, had_pictures, words)
    assert all(isinstance(answer, bool) for answer in said)
    # The words decide, whatever the status, their case and the runs of space between them.
    assert classified(200, respaced(text), had_pictures, words) == said
    # Pictures in the request only add refusals (the words that count only then).
    assert not refusals.refuses_pictures(status, text, False, words) or (
        refusals.refuses_pictures(status, text, True, words)
    )


def classified(status: int, text: str, had_pictures: bool, words: Words) -> tuple[bool, ...]:
    return (
        refusals.refuses_pictures(status, text, had_pictures, words),
        refusals.is_context_too_long(text, words),
        refusals.is_role_order_error(text, words),
    )


_SWAPPED = str.maketrans(
    string.ascii_lowercase + string.ascii_uppercase, string.ascii_uppercase + string.ascii_lowercase
)


def respaced(text: str) -> str:
    """`text` with its ASCII letters in the other case and each space a run of spaces."""
    return text.translate(_SWAPPED).replace(" ", " \t\n ")


def _without_policy(text: str) -> bool:
    return "data policy" not in " ".join(text.lower().split())


@FUZZ
@given(
    STATUSES,
    SHAPES.flatmap(lambda words: st.tuples(st.just(words), st.sampled_from(words.pictures))),
    TEXTS.filter(_without_policy),
    TEXTS.filter(_without_policy),
    st.booleans(),
)
def test_a_refusal_is_found_wherever_it_sits_and_however_it_is_cased(
    status: int, marker: tuple[Words, str], before: str, after: str, had_pictures: bool
) -> None:
    words, said = marker
    # Spaces around the marker, since the words either side may run into it.
    shouted = f"{before} {said.upper().replace(' ', '  ')} {after}"
    assert refusals.refuses_pictures(status, shouted, had_pictures, words)


@FUZZ
@given(
    SHAPES.flatmap(lambda words: st.tuples(st.just(words), st.sampled_from(words.context))),
    TEXTS,
    TEXTS,
)
def test_an_overlong_conversation_is_found_wherever_it_sits(
    marker: tuple[Words, str], before: str, after: str
) -> None:
    words, said = marker
    assert refusals.is_context_too_long(f"{before}\n{said.title()}\t{after}", words)


# -- translate_status and the other shapes' classifiers -------------------------------


@TRANSLATION_BUGS
@FUZZ
@given(
    STATUSES,
    BODIES,
    HEADERS,
    st.booleans(),
    st.sampled_from([None, *PRESETS.values()]),
    st.sampled_from(["", "gpt-4o-mini"]),
)
@example(429, "", {"retry-after": "nan"}, False, None, "")
def test_translate_status_turns_anything_into_our_error(
    status: int,
    body: str,
    headers: dict[str, str],
    had_pictures: bool,
    preset: Preset | None,
    model: str,
) -> None:
    error = translate_status(
        PROVIDER, status, body, headers, had_pictures=had_pictures, preset=preset, model=model
    )
    is_ours(error)
    assert len(error.detail) <= 2100  # bounded, however long the body
    if len(body.strip()) >= 40:  # the person gets advice, not the provider's raw text
        assert body.strip() not in error.message


@FUZZ
@given(STATUSES, BODY.map(dumps) | TEXTS, GUARD_HEADERS, st.booleans())
def test_guard_translate_status_without_the_known_bugs(
    status: int, body: str, headers: dict[str, str], had_pictures: bool
) -> None:
    error = translate_status(
        PROVIDER, status, body, headers, had_pictures=had_pictures, preset=PRESETS["openai"]
    )
    is_ours(error)
    assert len(error.detail) <= 2100
    if len(body.strip()) >= 40:
        assert body.strip() not in error.message
    wait = getattr(error, "retry_after", None)
    assert wait is None or (math.isfinite(wait) and wait >= 0)


@TRANSLATION_BUGS
@pytest.mark.parametrize(
    ("body", "headers"),
    [
        ("", {"retry-after": "nan"}),
        ("", {"retry-after": "inf"}),
        ("", {"retry-after": "1e400"}),
        (DEEP, {}),
        ("[" * 3000, {}),
    ],
    ids=["retry-after-nan", "retry-after-inf", "retry-after-1e400", "deep-json", "deep-junk"],
)
def test_translate_status_known_crashes(body: str, headers: dict[str, str]) -> None:
    is_ours(translate_status(PROVIDER, 429, body, headers, had_pictures=False, preset=None))


@known_bugs(
    "routing/wires/http_errors.py retry_after_seconds: float('nan'/'inf'/'1e400') passes "
    "_duration unchecked, so the wait is NaN or infinite"
)
@FUZZ
@given(HEADERS, TEXTS)
@example({"retry-after": "nan"}, "")
def test_a_wait_read_from_headers_is_finite(headers: dict[str, str], message: str) -> None:
    wait = retry_after_seconds(headers, message)
    assert wait is None or (math.isfinite(wait) and wait >= 0)


@known_bugs(
    "routing/wires/http_errors.py error_words/parse_error_body: RecursionError on deeply "
    "nested JSON (json.loads' and error_words' own recursion into lists)"
)
@FUZZ
@given(BODIES)
@example(DEEP)
def test_error_words_reads_any_body(body: str) -> None:
    words = parse_error_body(body)
    assert words is None or (isinstance(words, str) and words)
    try:
        parsed = json.loads(body)
    except (ValueError, RecursionError):
        assert words is None  # no JSON, no words of the provider's
    else:
        assert words == error_words(parsed)  # the body's words are its JSON's


@FUZZ
@given(JSON | BODY)
def test_error_words_reads_any_parsed_body(body: object) -> None:
    words = error_words(body)
    assert words is None or (isinstance(words, str) and words)
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, str) and error:  # Ollama's, LM Studio's: the words as they are
        assert words == error
    elif isinstance(error, dict) and error.get("message"):  # OpenAI's: its message first
        assert words is not None and words.startswith(str(error["message"]))
    elif isinstance(body, list):  # Gemini's list: the words of one of its errors
        assert words is None or words in [error_words(item) for item in body]


@FUZZ
@given(STATUSES, TEXTS | JUNK_TEXT, st.sampled_from(["", "llama3.2:3b"]))
def test_ollamas_classifier_turns_anything_into_our_error(
    status: int, message: str, model: str
) -> None:
    error = ollama_errors.classify_error(status, message, "fuzz", model=model)
    is_ours(error)
    assert message in error.detail  # what Ollama said is kept
    # Its words decide first (pictures, then length), then the status.
    if refusals.refuses_pictures(status, message, words=OLLAMA_WORDS):
        assert isinstance(error, PicturesRefused)
    elif refusals.is_context_too_long(message, OLLAMA_WORDS):
        assert isinstance(error, ContextTooLong)
    elif status in OLLAMA_STATUSES:
        assert isinstance(error, OLLAMA_STATUSES[status])


OLLAMA_STATUSES: dict[int, type[ProviderError]] = {
    401: KeyProblem,
    403: KeyProblem,
    429: RateLimited,
    503: Overloaded,
}


ANTHROPIC_BUGS = known_bugs(
    "routing/wires/anthropic.py parse_retry_after: email.utils.mktime_tz raises ValueError for "
    "a retry-after date whose year is out of range, and 'nan'/'inf' pass as the wait",
    "_error_fields catches ValueError but not the RecursionError of deeply nested JSON",
)


@ANTHROPIC_BUGS
@FUZZ
@given(STATUSES, BODIES, HEADERS, st.sampled_from(["", "claude-haiku-4-5"]))
@example(429, "", {"retry-after": "Mon, 01 Jan 99999 00:00:00 GMT"}, "")
def test_anthropics_classifier_turns_anything_into_our_error(
    status: int, body: str, headers: dict[str, str], model: str
) -> None:
    provider = ProviderConfig("fuzz", "anthropic", "http://127.0.0.1:9")
    error = anthropic_errors.classify_anthropic_error(status, body, headers, provider, model=model)
    is_ours(error)
    wait = getattr(error, "retry_after", None)
    assert wait is None or (math.isfinite(wait) and wait >= 0)


@FUZZ
@given(STATUSES, BODY.map(dumps) | TEXTS, GUARD_HEADERS)
def test_guard_anthropics_classifier_without_the_known_bugs(
    status: int, body: str, headers: dict[str, str]
) -> None:
    provider = ProviderConfig("fuzz", "anthropic", "http://127.0.0.1:9")
    error = anthropic_errors.classify_anthropic_error(status, body, headers, provider)
    is_ours(error)
    assert body[:500] in error.detail  # what Anthropic said is kept
    # Too large, busy and rate-limited are told apart by status or type, whatever the words.
    kind, _ = anthropic_errors.error_fields(body)
    if status == 413 or kind == "request_too_large":
        assert isinstance(error, BadRequest)
    elif status in (503, 529) or kind == "overloaded_error":
        assert isinstance(error, Overloaded)
    elif status == 429 or kind == "rate_limit_error":
        assert isinstance(error, RateLimited)


@ANTHROPIC_BUGS
@pytest.mark.parametrize(
    "headers",
    [{"retry-after": "Mon, 01 Jan 99999 00:00:00 GMT"}, {"retry-after": "nan"}],
    ids=["year-99999", "nan"],
)
def test_anthropic_retry_after_known_crashes(headers: dict[str, str]) -> None:
    wait = retry_after_seconds(headers)
    assert wait is None or (math.isfinite(wait) and wait >= 0)
