"""API keys: the config's, else the OS keyring's, else the provider's usual variable.

Sightline writes keys only to the OS keyring. With no keyring backend a key the
person types is kept in memory for this session and they are told so; it never
lands in a plaintext file or a log.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping

from app.logs import register_secret
from routing.models import ProviderConfig

log = logging.getLogger(__name__)

SERVICE = "sightline"


class KeyStore:
    """The OS keyring (service `sightline`, user = provider id), with a session fallback."""

    def __init__(self) -> None:
        self._session: dict[str, str] = {}
        self.problem = ""  # why the keyring can't be used, once we know

    def get(self, provider_id: str) -> str:
        """The stored key for a provider, or ''."""
        if provider_id in self._session:
            return self._session[provider_id]
        try:
            import keyring

            return keyring.get_password(SERVICE, provider_id) or ""
        except Exception as exc:  # any backend failure means "no stored key"
            self._note_problem(exc)
            return ""

    def set(self, provider_id: str, key: str) -> bool:
        """Store a key; True when the keyring holds it, False when kept for this session only."""
        try:
            import keyring

            keyring.set_password(SERVICE, provider_id, key)
        except Exception as exc:
            self._note_problem(exc)
            self._session[provider_id] = key
            return False
        self._session.pop(provider_id, None)
        return True

    def delete(self, provider_id: str) -> None:
        """Forget a provider's key, wherever it was kept."""
        self._session.pop(provider_id, None)
        try:
            import keyring

            keyring.delete_password(SERVICE, provider_id)
        except Exception as exc:
            log.info("no stored key to delete for %s (%s)", provider_id, type(exc).__name__)

    def _note_problem(self, exc: Exception) -> None:
        self.problem = (
            "No system keyring is available, so keys are kept only until Sightline closes "
            f"({type(exc).__name__})."
        )
        log.warning("keyring unavailable: %s", type(exc).__name__)


def key_variable(kind: str) -> str:
    """The environment variable a provider kind's key usually lives in ('' for none)."""
    from routing.presets import preset_for

    try:
        return preset_for(kind).key_env
    except ValueError:
        return ""


def with_keys(
    providers: Iterable[ProviderConfig],
    keystore: KeyStore,
    environ: Mapping[str, str] = os.environ,
) -> list[ProviderConfig]:
    """The providers with their keys filled in: config, else keyring, else environment."""
    filled = []
    for provider in providers:
        key = provider.api_key or keystore.get(provider.id)
        if not key:
            variable = key_variable(provider.kind)
            key = environ.get(variable, "") if variable else ""
        if key:
            register_secret(key)  # a provider may echo it back in an error we log
        filled.append(provider.with_key(key) if key else provider)
    return filled
