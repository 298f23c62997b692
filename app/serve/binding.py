"""Where the server listens: loopback unless the person says otherwise, out loud.

A server bound beyond loopback answers anyone on the network who has the token, and a
local model's answers (and the pictures sent to it) would leave this computer by that
door. So a host that is not loopback is refused unless `--allow-network`, and said when
allowed.
"""

from __future__ import annotations

import ipaddress

DEFAULT_HOST = "127.0.0.1"


class BindRefused(Exception):
    """A host beyond loopback asked for without `--allow-network`; the message says how."""


def is_loopback(host: str) -> bool:
    """Whether `host` is this computer's loopback only (127.0.0.0/8, ::1, localhost).

    By name only `localhost` counts: another name could resolve anywhere, and the wildcard
    addresses (0.0.0.0, ::) listen on every interface.
    """
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def checked_host(host: str, allow_network: bool) -> str | None:
    """None for a loopback host; for another, the warning to print when it is allowed.

    `BindRefused` when it is not allowed.
    """
    if is_loopback(host):
        return None
    if not allow_network:
        raise BindRefused(
            f"{host} is not loopback: other computers could reach the server there. "
            "Add --allow-network to serve beyond this computer on purpose."
        )
    return (
        f"sightline: serving beyond this computer on {host} (--allow-network): anyone on the "
        "network who has the token can use your models, and what they send may reach a "
        "model on this computer."
    )


def url_host(host: str) -> str:
    """The host as a URL writes it (an IPv6 address in brackets)."""
    bare = host.strip("[]")
    return f"[{bare}]" if ":" in bare else bare
