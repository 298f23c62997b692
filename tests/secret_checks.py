"""Where a secret is still to be found in a text: each form it is written in, and what its
base64 or hex still decodes to once redacted."""

from __future__ import annotations

import base64
import contextlib
import json
import re
from urllib.parse import quote, quote_plus


def written(secret: str) -> set[str]:
    """The forms a secret takes in someone else's words, written independently of
    routing.secret_forms: raw, JSON-escaped, URL-encoded, base64 and hex as a whole."""
    found = {secret, quote(secret, safe=""), quote_plus(secret)}
    for ascii_only in (True, False):
        inside = json.dumps(secret, ensure_ascii=ascii_only)[1:-1]
        found |= {inside, inside.replace("/", "\\/")}
    data = secret.encode()
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        found |= {encode(data).decode(), encode(data).decode().rstrip("=")}
    found |= {data.hex(), data.hex().upper()}
    return found


_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{4,}")
_HEX_RUN = re.compile(r"[0-9A-Fa-f]{6,}")


def secret_bytes_left(text: str, secret: str, width: int = 3) -> list[bytes]:
    """Every `width` bytes of the secret that a base64 or hex run in the text still
    decodes to, read from each start (a secret inside a longer blob sits at any offset).

    Redacting leaves a byte's bits at each end of a blob's secret at most; a long text
    (a log, a database) is searched with wider windows, which chance never decodes to."""
    data = secret.encode()
    width = min(width, len(data))
    windows = {data[n : n + width] for n in range(len(data) - width + 1)}
    decoded: list[bytes] = []
    for run in _BASE64_RUN.findall(text):
        for start in range(4):
            piece = run[start:]
            piece = piece[: len(piece) // 4 * 4]
            for alphabet in (b"+/", b"-_"):
                with contextlib.suppress(ValueError):  # binascii.Error: not this alphabet
                    decoded.append(base64.b64decode(piece, altchars=alphabet, validate=True))
    for run in _HEX_RUN.findall(text):
        for start in range(2):
            piece = run[start:]
            decoded.append(bytes.fromhex(piece[: len(piece) // 2 * 2]))
    return sorted(window for window in windows if any(window in found for found in decoded))


def leaks(text: str, *secrets: str) -> list[str]:
    """Each form of each secret still in the text, and each secret its base64 or hex
    still spells out, for a failure message."""
    found = [f"{form!r} (of {s!r})" for s in secrets for form in sorted(written(s)) if form in text]
    found += [f"{s!r} decodes from the text" for s in secrets if secret_bytes_left(text, s, 6)]
    return found
