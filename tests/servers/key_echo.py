"""A scripted reply that says back the key its request was sent with, in the forms a
server or a proxy may write it: `{key}`, `{key_base64}`, `{key_base64url}`, `{key_hex}`
in any of its texts (an error body, a stream's error event, a raw event) are filled in."""

from __future__ import annotations

import base64
from dataclasses import fields, replace
from typing import Any, TypeVar

from tests.servers.loopback import ScriptedReply

R = TypeVar("R", bound=ScriptedReply)


def key_forms(key: str) -> dict[str, str]:
    """The placeholders and what each becomes for this key."""
    data = key.encode()
    return {
        "{key}": key,
        "{key_base64}": base64.b64encode(data).decode(),
        "{key_base64url}": base64.urlsafe_b64encode(data).decode().rstrip("="),
        "{key_hex}": data.hex(),
    }


def echoing(reply: R, key: str) -> R:
    """The reply with every placeholder in its texts filled with the key as it came."""
    forms = key_forms(key)
    changed = {
        spot.name: _filled(value, forms)
        for spot in fields(reply)
        if isinstance(value := getattr(reply, spot.name), str | dict | list)
    }
    return replace(reply, **changed)


def _filled(value: Any, forms: dict[str, str]) -> Any:
    if isinstance(value, str):
        for mark, form in forms.items():
            value = value.replace(mark, form)
        return value
    if isinstance(value, dict):
        return {k: _filled(v, forms) for k, v in value.items()}
    if isinstance(value, list):
        return [_filled(v, forms) for v in value]
    return value
