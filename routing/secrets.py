"""The secrets in use and their redaction: every form a secret can take in a text, replaced.

Whatever Sightline configures as secret registers here: every provider key, the
user name and password in a provider's address or a proxy variable, the `env`
values of an MCP server or an agent (all but a plain setting such as `1` or `info`
under a name that isn't a secret's: `register_env`). `redact` then replaces each, in every form it
can take in someone else's words (raw, JSON-escaped, URL-encoded, base64, hex:
`routing.secret_forms`), and anything shaped like a key, in whatever a person or a
log file reads: log lines, `ProviderError`s, stored notices, MCP problems.
`redact_secrets` replaces the registered secrets alone, in what the store keeps of
answers and tool results.

It sits in `routing` so the error tree can redact as errors are made; `app`
registers what it loads.
"""

from __future__ import annotations

import base64
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from urllib.parse import unquote, urlsplit

from routing.secret_forms import encoded_forms, written_forms

MARK = "[redacted]"


def _compiled_when_used(expression: str) -> Callable[[], re.Pattern[str]]:
    """The expression, compiled the first time it is asked for: compiling this module's
    four took about 1.2 ms of every start, before a window whose first paint redacts
    nothing."""
    return cache(lambda: re.compile(expression))


# Shapes of API keys and bearer tokens, redacted even when nobody registered them.
# The lookahead names every alternative's first letter, so the expression skips the
# characters no match can start at (a fourth of the time of trying each one).
_SHAPES = _compiled_when_used(
    r"(?i)(?=[abcgpsx])(?:(bearer\s+|x-api-key[\"':\s]+|api[_-]?key[\"'=:\s]+)[^\s\"',}]+"
    r"|\b(sk|pk|gsk|xai|csk)-[A-Za-z0-9_\-]{8,}|\bAIza[0-9A-Za-z_\-]{20,})"
)
# What every match of a shape holds, case-folded: a text with none of them (most of a
# log) skips the expression, which tries each of its characters.
_SHAPE_HINTS = ("bearer", "api", "sk-", "pk-", "xai-", "aiza")

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
_compiled: _Search | None = None  # the search for every known secret; None: to be built


def register_secret(value: str) -> None:
    """Redact this value (a key, a password, a token), of any length, from now on."""
    global _compiled
    fresh = {v for v in (value, value.strip()) if v.strip()}
    with _lock:
        if not fresh <= _known:
            _known.update(fresh)
            _compiled = None


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


# An env value that is plainly a setting: a number of up to five digits, or up to four
# words of plain letters (lower, upper or capitalised case), like `1`, `8080`, `true`,
# `info`, `think,plan`. Registered, it would be redacted from every notice, log line
# and answer that says "1" or "permissions"; a token is not written like that.
_PLAIN_SETTING = _compiled_when_used(
    r"\d{1,5}(\.\d+)?|(?:[a-z]{1,16}|[A-Z]{1,16}|[A-Z][a-z]{1,15})(?:[ ,;:._-]"
    r"(?:[a-z]{1,16}|[A-Z]{1,16}|[A-Z][a-z]{1,15})){0,3}"
)
# A folder, a file or a list of them (`PATH`), or an address with no user-info and no
# query, is where a program works, not a secret: redacted, every tool result naming
# that folder would lose it.
_PLACE_SETTING = _compiled_when_used(
    r"(?:(?:~|/|[A-Za-z]:\\)[^\s:;]*)(?:[:;](?:~|/|[A-Za-z]:\\)[^\s:;]*)*"
    r"|https?://[^\s@?#/]+(?:/[^\s@?#]*)?"
)
# ...unless the variable's name says it holds a secret, whatever it looks like.
_SECRET_NAME = _compiled_when_used(
    r"(?i)key|token|secret|pass|pwd|auth|cred|cookie|session|private"
)


def register_env(env: Iterable[tuple[str, str]]) -> None:
    """Redact the secrets among a program's environment variables (an MCP server's, an
    agent's): every value but a plain setting under a name that isn't a secret's, and the
    user-info of each URL."""
    for name, value in env:
        plain = value.strip()
        setting = _PLAIN_SETTING().fullmatch(plain) or _PLACE_SETTING().fullmatch(plain)
        if _SECRET_NAME().search(name) or not setting:
            register_secret(value)  # whatever its length: a short one as a whole token
        register_url_userinfo(value)


def register_proxy_userinfo(environ: Mapping[str, str]) -> None:
    """Redact the user-info of the proxy URLs in the environment's proxy variables."""
    for name in PROXY_VARIABLES:
        if value := environ.get(name):
            register_url_userinfo(value)


def forms(value: str) -> set[str]:
    """Every form of a value Sightline may meet in someone's words: raw, JSON-escaped,
    URL-encoded, and (for a value long enough to be told from chance) base64 and hex."""
    found = written_forms(value)
    if len(value) >= WHOLE_TOKEN_BELOW:
        found |= encoded_forms(value)
    return found


class _Search:
    """Every known secret's forms, looked for in two steps.

    One regular expression of a thousand literals tries each at every character (a
    megabyte of log would take seconds), while `str.__contains__` skips through a
    text a needle's length at a time. So each form is looked for first by a literal
    it holds (`keys`: a form that is inside another needs no search of its own), and
    only the forms whose key is in the text make the expression that replaces them.
    A plain class, not a dataclass: this module loads before the window's first paint,
    where defining a frozen dataclass costs about 0.5 ms.
    """

    __slots__ = ("compiled", "keys", "patterns", "short")

    def __init__(
        self,
        keys: tuple[str, ...],
        patterns: tuple[frozenset[tuple[int, str]], ...],
        short: frozenset[int],
    ) -> None:
        """`patterns`: for each key, (length, pattern) of its forms; `short`: the keys of
        values redacted only as whole tokens."""
        self.keys = keys
        self.patterns = patterns
        self.short = short
        self.compiled: dict[frozenset[int], re.Pattern[str]] = {}

    def sub(self, text: str, *, short_too: bool) -> str:
        """The text with the forms found replaced (those of short values too, or not)."""
        present = frozenset(
            n
            for n, key in enumerate(self.keys)
            if key in text and (short_too or n not in self.short)
        )
        if not present:
            return text
        pattern = self.compiled.get(present)
        if pattern is None:
            if len(self.compiled) >= _COMPILED_KEPT:
                self.compiled.clear()  # a rare mix of secrets; the usual ones come back
            alternatives = {pair for n in present for pair in self.patterns[n]}
            ordered = [p for _, p in sorted(alternatives, key=lambda pair: (-pair[0], pair[1]))]
            # The mark comes first, so redacting twice never redacts inside a mark.
            pattern = re.compile("|".join([re.escape(MARK), *ordered]))
            self.compiled[present] = pattern
        return pattern.sub(MARK, text)


_COMPILED_KEPT = 256  # expressions kept for the mixes of secrets met


def _build(known: Iterable[str]) -> _Search:
    """The two-step search for every form of every known secret."""
    by_key: dict[str, set[tuple[int, str]]] = {}
    short_keys: set[str] = set()
    for value in known:
        short = len(value) < WHOLE_TOKEN_BELOW
        written = sorted(forms(value), key=len)
        for n, form in enumerate(written):
            pattern = re.escape(form)
            if short:
                # Bounded after the form (the lookbehind spans it), so every alternative
                # starts with a literal and the expression skips to their first characters.
                pattern = f"{pattern}(?<!{_ALNUM}{pattern})(?!{_ALNUM})"
                short_keys.add(form)
            # A shorter form inside this one is in every text this one is in.
            key = next((inner for inner in written[:n] if inner in form), form)
            by_key.setdefault(key, set()).add((len(form), pattern))
    keys = tuple(by_key)
    return _Search(
        keys=keys,
        patterns=tuple(frozenset(by_key[key]) for key in keys),
        short=frozenset(n for n, key in enumerate(keys) if key in short_keys),
    )


def _search() -> _Search | None:
    """The search for the secrets known now (built once after each change); None: none."""
    global _compiled
    found = _compiled
    if found is None and _known:
        with _lock:
            found = _compiled = _compiled or _build(set(_known))
    return found


def redact(text: str) -> str:
    """The text with every secret in use, in every form, and anything shaped like a key replaced."""
    if not text:
        return text
    search = _search()
    if search is not None:
        text = search.sub(text, short_too=True)
    if any(hint in text.casefold() for hint in _SHAPE_HINTS):
        text = _SHAPES().sub(lambda m: (m.group(1) or "") + MARK, text)
    return text


def redact_secrets(text: str) -> str:
    """The text with every secret in use of five characters or more, in every form, replaced.

    For what a model wrote and a tool returned, as it is stored: a value as short as
    `1` or `true` (an env flag) is left, as is a key-shaped example in an answer
    (`Authorization: Bearer <token>`), so the person's chat reads as it was written.
    """
    search = _search() if text else None
    return search.sub(text, short_too=False) if search is not None else text
