"""The secrets in use and their redaction: every form a secret can take in a text, replaced.

Whatever Sightline configures as secret registers here: every provider key, the
user name and password in a provider's address or a proxy variable, every `env`
value of an MCP server. `redact` then replaces each, in every form it can take in
someone else's words (raw, JSON-escaped, URL-encoded), and anything shaped like a
key, in whatever a person or a log file reads: log lines, `ProviderError`s,
stored notices, MCP problems.

It sits in `routing` so the error tree can redact as errors are made; `app`
registers what it loads.
"""

from __future__ import annotations

import base64
import json
import re
import threading
from collections.abc import Iterable, Mapping
from urllib.parse import quote, quote_plus, unquote, urlsplit

MARK = "[redacted]"

# Shapes of API keys and bearer tokens, redacted even when nobody registered them.
_SHAPES = re.compile(
    r"(?i)(bearer\s+|x-api-key[\"':\s]+|api[_-]?key[\"'=:\s]+)[^\s\"',}]+"
    r"|\b(sk|pk|gsk|xai|csk)-[A-Za-z0-9_\-]{8,}|\bAIza[0-9A-Za-z_\-]{20,}"
)

# A value this short (an env value "1", "true", "info") is redacted only as a whole
# token, bounded by characters that are not letters or digits: replaced wherever it
# appears it would eat every "1" of every number and the log would be unreadable.
# From five characters on it goes wherever it appears, so a 5-character key is
# never left inside a longer word of an echo.
WHOLE_TOKEN_BELOW = 5
_ALNUM = r"[^\W_]"  # a letter or digit, in any script

# The variables httpx (and most tools) read a proxy from; their user-info is secret.
PROXY_VARIABLES = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
)

_lock = threading.Lock()
_known: set[str] = set()
_pattern: re.Pattern[str] | None = None  # every known secret's forms; None: to be built


def register_secret(value: str) -> None:
    """Redact this value (a key, a password, a token), of any length, from now on."""
    global _pattern
    fresh = {v for v in (value, value.strip()) if v.strip()}
    with _lock:
        if not fresh <= _known:
            _known.update(fresh)
            _pattern = None


def register_url_userinfo(url: str) -> None:
    """Redact the user name and password written into a URL (`https://user:pw@host`)."""
    try:
        parts = urlsplit(url.strip())
        username, password = parts.username, parts.password
    except ValueError:  # not a URL at all: nothing in it is user-info
        return
    for written in (username, password):
        if written:
            register_secret(written)
            register_secret(unquote(written))  # the same value as the server reads it
    if username or password:
        # As an HTTP client sends them: `Authorization: Basic base64(user:password)`.
        pair = f"{unquote(username or '')}:{unquote(password or '')}"
        register_secret(base64.b64encode(pair.encode()).decode("ascii"))


def register_proxy_userinfo(environ: Mapping[str, str]) -> None:
    """Redact the user-info of the proxy URLs in the environment's proxy variables."""
    for name in PROXY_VARIABLES:
        if value := environ.get(name):
            register_url_userinfo(value)


def forms(value: str) -> set[str]:
    """Every form of a value Sightline may meet in someone's words: raw, JSON, URL-encoded."""
    encoded = {value, quote(value), quote(value, safe=""), quote_plus(value)}
    encoded |= {_lower_percent(text) for text in encoded}
    found = set(encoded)
    for text in encoded:
        for escaped in _json_forms(text):
            found.add(escaped)
            # Escaped twice: a JSON body quoted as a string inside another one.
            found.update(_json_forms(escaped))
    found.add(repr(value)[1:-1])  # a log line that formatted it with %r
    return {form for form in found if form}


def _json_forms(text: str) -> set[str]:
    """The text as a JSON string's inside: with or without \\uXXXX escapes and `\\/`."""
    ascii_only = json.dumps(text)[1:-1]
    upper = re.sub(r"\\u([0-9a-f]{4})", lambda m: "\\u" + m.group(1).upper(), ascii_only)
    escaped = {ascii_only, upper, json.dumps(text, ensure_ascii=False)[1:-1]}
    return escaped | {form.replace("/", "\\/") for form in escaped}


def _lower_percent(text: str) -> str:
    return re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), text)


def _build(known: Iterable[str]) -> re.Pattern[str]:
    """One pattern for every form of every known secret, longest first."""
    alternatives: list[tuple[int, str]] = []
    for value in known:
        short = len(value) < WHOLE_TOKEN_BELOW
        for form in forms(value):
            escaped = re.escape(form)
            if short:
                escaped = f"(?<!{_ALNUM}){escaped}(?!{_ALNUM})"
            alternatives.append((len(form), escaped))
    alternatives.sort(key=lambda pair: -pair[0])
    # The mark comes first, so redacting twice never redacts inside a mark.
    body = "|".join([re.escape(MARK), *(pattern for _, pattern in alternatives)])
    return re.compile(body)


def redact(text: str) -> str:
    """The text with every secret in use, in every form, and anything shaped like a key replaced."""
    global _pattern
    if not text:
        return text
    pattern = _pattern
    if pattern is None and _known:
        with _lock:
            pattern = _pattern = _pattern or _build(set(_known))
    if pattern is not None:
        text = pattern.sub(MARK, text)
    return _SHAPES.sub(lambda m: (m.group(1) or "") + MARK, text)
