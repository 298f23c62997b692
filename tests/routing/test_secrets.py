"""The redaction registry: every secret, of any length, in every form it can be written."""

from __future__ import annotations

import base64
import json
import threading
from urllib.parse import quote, quote_plus

import pytest

from routing import secrets
from routing.errors import KeyProblem, ProviderError
from routing.secrets import (
    redact,
    register_proxy_userinfo,
    register_secret,
    register_url_userinfo,
)


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's secrets are its own: the registry is process-wide."""
    monkeypatch.setattr(secrets, "_known", set())
    monkeypatch.setattr(secrets, "_pattern", None)


def test_a_five_character_key_is_redacted_wherever_it_appears() -> None:
    register_secret("q7Zt4")
    assert redact("Incorrect API key provided: q7Zt4.") == "Incorrect API key provided: [redacted]."
    assert redact("glued:xq7Zt4y") == "glued:x[redacted]y"


@pytest.mark.parametrize("value", ["1", "true", "abc"])
def test_a_very_short_value_is_redacted_only_as_a_whole_token(value: str) -> None:
    register_secret(value)
    assert redact(f"flag={value}, next") == "flag=[redacted], next"
    # Inside a longer word or number it stays, so the log stays readable.
    assert redact(f"x{value}y 2{value}0") == f"x{value}y 2{value}0"


@pytest.mark.parametrize(
    "form",
    [
        "sl/ash+key=0a1b/é",
        json.dumps("sl/ash+key=0a1b/é")[1:-1],  # \u00e9
        json.dumps("sl/ash+key=0a1b/é")[1:-1].replace("/", "\\/"),
        json.dumps("sl/ash+key=0a1b/é")[1:-1].replace("\\u00e9", "\\u00E9"),
        json.dumps("sl/ash+key=0a1b/é", ensure_ascii=False)[1:-1].replace("/", "\\/"),
        json.dumps(json.dumps("sl/ash+key=0a1b/é")[1:-1])[1:-1],  # escaped twice
        quote("sl/ash+key=0a1b/é", safe=""),
        quote("sl/ash+key=0a1b/é", safe="").lower(),
        quote("sl/ash+key=0a1b/é"),
        quote_plus("sl/ash+key=0a1b/é"),
    ],
)
def test_every_written_form_of_a_secret_is_redacted(form: str) -> None:
    register_secret("sl/ash+key=0a1b/é")
    assert form != "" and redact(f"<{form}>") == "<[redacted]>"


def test_url_user_info_is_registered_as_written_decoded_and_as_basic_auth() -> None:
    register_url_userinfo("https://u5er-alice:pa%2Fss@example.com/v1")
    basic = base64.b64encode(b"u5er-alice:pa/ss").decode()
    text = f"u5er-alice pa%2Fss pa/ss Authorization: Basic {basic}"
    assert redact(text) == "[redacted] [redacted] [redacted] Authorization: Basic [redacted]"
    register_url_userinfo("not a url [")  # nothing to register, and no error


def test_proxy_variables_user_info_is_registered() -> None:
    register_proxy_userinfo(
        {"HTTPS_PROXY": "http://proxy-user:Pr0xy-pass@proxy:3128", "PATH": "/a:b@c"}
    )
    assert redact("proxy-user / Pr0xy-pass") == "[redacted] / [redacted]"
    assert redact("/a:b@c") == "/a:b@c"  # not a proxy variable


def test_shapes_are_redacted_without_registering() -> None:
    text = "Authorization: Bearer abc.def sk-proj-0123456789abcdef AIza" + "x" * 30
    assert redact(text) == "Authorization: Bearer [redacted] [redacted] [redacted]"


def test_redacting_twice_changes_nothing_more() -> None:
    register_secret("redacted")  # even a secret inside the mark itself
    once = redact("key=redacted")
    assert once == "key=[redacted]" and redact(once) == once


def test_a_provider_error_is_redacted_when_made() -> None:
    register_secret("q7Zt4")
    error = KeyProblem("refused q7Zt4", provider_id="openai", detail='{"key": "q7Zt4"}')
    assert (error.message, error.detail, str(error)) == (
        "refused [redacted]",
        '{"key": "[redacted]"}',
        "refused [redacted]",
    )
    assert error.args == ("refused [redacted]",) and isinstance(error, ProviderError)


def test_registering_while_redacting_in_other_threads_is_safe() -> None:
    failures: list[BaseException] = []

    def redact_often() -> None:
        try:
            for _ in range(200):
                redact("nothing secret here 0123456789")
        except BaseException as exc:  # any failure is the test's failure
            failures.append(exc)

    threads = [threading.Thread(target=redact_often) for _ in range(4)]
    for thread in threads:
        thread.start()
    for n in range(200):
        register_secret(f"secret-{n:04d}")
    for thread in threads:
        thread.join()
    assert failures == [] and redact("secret-0199") == "[redacted]"
