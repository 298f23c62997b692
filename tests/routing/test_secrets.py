"""The redaction registry: every secret, of any length, in every form it can be written."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Callable
from urllib.parse import quote, quote_plus

import pytest

from routing.errors import KeyProblem, ProviderError
from routing.secrets import (
    redact,
    redact_secrets,
    register_env,
    register_proxy_userinfo,
    register_secret,
    register_url_userinfo,
)
from tests.secret_checks import secret_bytes_left


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


# -- base64 and hex ----------------------------------------------------------------

# Its base64 differs between the standard and URL-safe alphabets, and needs padding.
ENCODED_KEY = "enc/Key+?>~0123456789ab"


@pytest.mark.parametrize("encode", [base64.b64encode, base64.urlsafe_b64encode])
@pytest.mark.parametrize("padded", [True, False])
def test_a_secret_in_base64_alone_is_redacted_whole(
    encode: Callable[[bytes], bytes], padded: bool
) -> None:
    register_secret(ENCODED_KEY)
    written = encode(ENCODED_KEY.encode()).decode()
    assert base64.b64encode(ENCODED_KEY.encode()) != base64.urlsafe_b64encode(ENCODED_KEY.encode())
    written = written if padded else written.rstrip("=")
    assert redact(f"auth={written};") == "auth=[redacted];"


@pytest.mark.parametrize("before", ['{"key":"', 'x{"key":"', 'xy{"key":"'])
@pytest.mark.parametrize("after", ['"}', '"}z', '"}zz'])
@pytest.mark.parametrize("encode", [base64.b64encode, base64.urlsafe_b64encode])
def test_a_secret_inside_a_longer_base64_blob_is_redacted_at_every_offset(
    before: str, after: str, encode: Callable[[bytes], bytes]
) -> None:
    register_secret(ENCODED_KEY)
    blob = encode(f"{before}{ENCODED_KEY}{after}".encode()).decode()
    assert secret_bytes_left(blob, ENCODED_KEY) != []  # the check finds it when it is there
    redacted = redact(f"echo: {blob}")
    assert "[redacted]" in redacted and secret_bytes_left(redacted, ENCODED_KEY) == []


def test_the_base64_of_a_secret_json_escaped_is_redacted() -> None:
    register_secret("tøken/with-ü-0987654321")
    body = json.dumps({"auth": "tøken/with-ü-0987654321"})  # \u00f8 and \u00fc
    redacted = redact(base64.b64encode(body.encode()).decode())
    assert secret_bytes_left(redacted, json.dumps("tøken/with-ü-0987654321")[1:-1]) == []


@pytest.mark.parametrize("upper", [False, True])
def test_a_secret_in_hex_is_redacted_alone_and_inside_a_longer_dump(upper: bool) -> None:
    register_secret(ENCODED_KEY)
    alone = ENCODED_KEY.encode().hex()
    dump = f'{{"key": "{ENCODED_KEY}"}}'.encode().hex()
    alone, dump = (alone.upper(), dump.upper()) if upper else (alone, dump)
    assert redact(f"sent {alone}.") == "sent [redacted]."
    assert secret_bytes_left(redact(dump), ENCODED_KEY) == []


def test_a_five_character_secret_is_redacted_in_base64_at_every_offset() -> None:
    register_secret("q7Zt4")
    for before in ("", "a", "ab"):
        blob = base64.b64encode(f"{before}q7Zt4!".encode()).decode()
        assert secret_bytes_left(redact(blob), "q7Zt4") == []
    assert redact("71375a7434") == "[redacted]"  # its hex


def test_a_very_short_values_encodings_are_not_looked_for() -> None:
    # "1" in hex is "31": redacting that would eat every 31 of every number.
    register_secret("1")
    assert redact("31 MQ== MQ 0x31") == "31 MQ== MQ 0x31"


def test_redact_secrets_keeps_short_values_and_key_shapes_but_not_secrets() -> None:
    register_secret("true")
    register_secret(ENCODED_KEY)
    encoded = base64.b64encode(ENCODED_KEY.encode()).decode()
    text = f"Set debug = true and send Authorization: Bearer <token>; yours is {encoded}."
    assert redact_secrets(text) == (
        "Set debug = true and send Authorization: Bearer <token>; yours is [redacted]."
    )


def test_every_form_is_redacted_in_a_megabyte_at_once() -> None:
    # The search looks for a literal of each form first; many secrets, one text.
    for n in range(20):
        register_secret(f"secret-number-{n:02d}-{'x' * n}")
    register_secret(ENCODED_KEY)
    filler = "INFO the request to /api/chat took 12 ms\n" * 25_000
    blob = base64.b64encode(f'{{"k":"{ENCODED_KEY}"}}'.encode()).decode()
    text = filler + quote(ENCODED_KEY, safe="") + filler + blob + ENCODED_KEY.encode().hex()
    redacted = redact(text)
    assert redacted.count("[redacted]") == 3 and redacted.startswith(filler)
    assert secret_bytes_left(redacted[-200:], ENCODED_KEY) == []


# -- a program's environment -----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DEBUG", "1"),
        ("PORT", "8080"),
        ("VERBOSE", "true"),
        ("LOG_LEVEL", "INFO"),
        ("FAKE_CODEX", "permissions"),
        ("BEHAVIOURS", "think,plan"),
        ("MODE", "Plan"),
        ("FOLDER", "/srv/private/data"),  # where a program works: its results name it
        ("PATH", "/usr/local/bin:/usr/bin:~/bin"),
        ("OLLAMA_HOST", "http://127.0.0.1:11434/api"),
    ],
)
def test_an_env_value_that_is_plainly_a_setting_stays_readable(name: str, value: str) -> None:
    register_env([(name, value)])
    assert redact(f"asked for more {value} (1 step)") == f"asked for more {value} (1 step)"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("GITHUB", "ghp_0123456789abcdef"),  # letters and digits: a token's shape
        ("UPSTREAM", "xYzAbCdEfGhIjKlM"),  # mixed case inside a word
        ("LETTERS", "abcdefghijklmnopqrstu"),  # a word longer than any plain one
        ("DB_PASSWORD", "hunter"),  # plain, but its name says what it is
        ("API_KEY", "1234"),
        ("SESSION", "true"),
        ("SECRET_DIR", "/srv/private/data"),  # a place, but its name says it is secret
        ("HOOK", "https://hooks.example/in?sig=0123456789"),  # a query may carry a token
    ],
)
def test_every_other_env_value_is_a_secret(name: str, value: str) -> None:
    register_env([(name, value)])
    assert redact(f"said {value}.") == "said [redacted]."


def test_a_url_in_the_environment_has_its_user_info_registered() -> None:
    register_env([("DATABASE_URL", "postgres://dbuser:s3cret-pw@127.0.0.1:5432/app")])
    assert redact("login dbuser with s3cret-pw") == "login [redacted] with [redacted]"
