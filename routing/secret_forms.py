"""The forms a secret takes in someone else's words, each as the literal text to look for.

A server or a program that echoes a key writes it raw, JSON-escaped (once or twice,
`\\u` escapes in either case, `/` as `\\/`), URL-encoded (`quote`, `quote_plus`,
`%2f` or `%2F`), formatted with `%r`, or encoded: base64 (standard or URL-safe,
padded or not) and hex (lower or upper case). Base64 written alone starts at the
secret's first byte, but inside a longer blob (`base64('{"key":"SECRET"}')`) the
secret may start at the second or third byte of a 3-byte group, and then its first
and last characters mix with its neighbours' bits: for each of the three offsets
the characters that hold the secret's bits alone are a form of their own.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from urllib.parse import quote, quote_plus

# An encoded form shorter than this is not looked for: six base64 characters are 36
# bits of the secret, rare enough in a text by chance, and every secret long enough
# to be encoded (five characters or more) has at least this many at each offset.
MIN_ENCODED = 6


def written_forms(value: str) -> set[str]:
    """The value raw, JSON-escaped, URL-encoded and as `%r` writes it."""
    encoded = {value, quote(value), quote(value, safe=""), quote_plus(value)}
    encoded |= {_lower_percent(text) for text in encoded}
    found = set(encoded)
    for text in encoded:
        for escaped in json_forms(text):
            found.add(escaped)
            # Escaped twice: a JSON body quoted as a string inside another one.
            found.update(json_forms(escaped))
    found.add(repr(value)[1:-1])  # a log line that formatted it with %r
    return {form for form in found if form}


def encoded_forms(value: str) -> set[str]:
    """The value's bytes (and its JSON-escaped bytes) in base64 and hex, every way written."""
    sources = {value, *json_forms(value)}
    found: set[str] = set()
    for source in sources:
        data = source.encode("utf-8")
        found |= {data.hex(), data.hex().upper()}
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            alone = encode(data).decode("ascii")
            found |= {alone, alone.rstrip("=")}
            found.update(_base64_cores(data, encode))
    return {form for form in found if len(form) >= MIN_ENCODED}


def _base64_cores(data: bytes, encode: Callable[[bytes], bytes]) -> set[str]:
    """The characters of base64 that hold only the data's bits, the data starting at each
    of the three byte offsets of a 3-byte group."""
    cores = set()
    for offset in range(3):
        # Filler around the data; the characters kept never see a filler bit.
        written = encode(b"\0" * offset + data + b"\0\0").decode("ascii")
        first = -(-8 * offset // 6)  # the first character whose 6 bits start inside the data
        end = 8 * (offset + len(data)) // 6  # past the last one ending inside it
        cores.add(written[first:end])
    return cores


def json_forms(text: str) -> set[str]:
    """The text as a JSON string's inside: with or without \\uXXXX escapes and `\\/`."""
    ascii_only = json.dumps(text)[1:-1]
    upper = re.sub(r"\\u([0-9a-f]{4})", lambda m: "\\u" + m.group(1).upper(), ascii_only)
    escaped = {ascii_only, upper, json.dumps(text, ensure_ascii=False)[1:-1]}
    return escaped | {form.replace("/", "\\/") for form in escaped}


def _lower_percent(text: str) -> str:
    return re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), text)
