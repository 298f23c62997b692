"""API keys: the config's, else the OS keyring's, else the provider's usual variable.

Sightline writes keys only to the OS keyring. With no keyring backend a key the
person types is kept in memory for this session and they are told so; it never
lands in a plaintext file or a log.

A provider that needs no key (Ollama, LM Studio, llama.cpp) is looked up in the
keyring only when Sightline put a key there for it: the data folder keeps the
ids of those providers (ids only, never a key) in `keyring-providers.json`, so a
setup of local servers alone never loads the keyring (about 20 ms of every start).
The index is written whole, mode 0600 (app/private_files.py).

Every secret a provider's settings hold is registered for redaction
(routing/secrets.py) as the providers are readied: its key, whatever its length,
the user-info of its address, and that of the proxy variables.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from app.private_files import make_private_folder, write_private
from routing.models import ProviderConfig
from routing.secrets import register_proxy_userinfo, register_secret, register_url_userinfo

log = logging.getLogger(__name__)

SERVICE = "sightline"
INDEX_NAME = "keyring-providers.json"


class KeyStore:
    """The OS keyring (service `sightline`, user = provider id), with a session fallback."""

    def __init__(self, data_dir: Path | None = None) -> None:
        """`data_dir` keeps the index of providers with a key here; None: no index."""
        self._session: dict[str, str] = {}
        self.problem = ""  # why the keyring can't be used, once we know
        self._index_path = data_dir / INDEX_NAME if data_dir is not None else None

    def may_hold(self, provider_id: str) -> bool:
        """Whether the keyring may hold a key for this provider (False: it surely doesn't)."""
        if provider_id in self._session:
            return True
        indexed = self._indexed()
        return indexed is None or provider_id in indexed

    def _indexed(self) -> set[str] | None:
        """The providers Sightline stored a key for; None when that isn't known."""
        if self._index_path is None:
            return None
        try:
            found = json.loads(self._index_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None  # written by a Sightline before the index: anything may be there
        except (OSError, ValueError):
            return None
        ids = found.get("providers") if isinstance(found, dict) else None
        return {i for i in ids if isinstance(i, str)} if isinstance(ids, list) else None

    def note(self, provider_ids: Iterable[str], *, has_key: bool) -> None:
        """Record that the keyring now holds (or no longer holds) keys for these providers."""
        if self._index_path is None:
            return
        indexed = self._indexed() or set()
        changed = indexed | set(provider_ids) if has_key else indexed - set(provider_ids)
        if changed == indexed and self._index_path.exists():
            return
        try:
            make_private_folder(self._index_path.parent)
            write_private(self._index_path, json.dumps({"providers": sorted(changed)}))
        except OSError as exc:  # no index: every provider is looked up, as before
            log.info("can't write %s (%s)", self._index_path, type(exc).__name__)

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
        register_secret(key)  # in use from now on, before any provider can echo it
        try:
            import keyring

            keyring.set_password(SERVICE, provider_id, key)
        except Exception as exc:
            self._note_problem(exc)
            self._session[provider_id] = key
            return False
        self._session.pop(provider_id, None)
        self.note([provider_id], has_key=True)
        return True

    def delete(self, provider_id: str) -> None:
        """Forget a provider's key, wherever it was kept."""
        self._session.pop(provider_id, None)
        try:
            import keyring

            keyring.delete_password(SERVICE, provider_id)
        except Exception as exc:
            log.info("no stored key to delete for %s (%s)", provider_id, type(exc).__name__)
        self.note([provider_id], has_key=False)

    def _note_problem(self, exc: Exception) -> None:
        self.problem = (
            "No system keyring is available, so keys are kept only until Sightline closes "
            f"({type(exc).__name__})."
        )
        log.warning("keyring unavailable: %s", type(exc).__name__)


def _needs_key(kind: str) -> bool:
    from routing.presets import preset_for

    try:
        return preset_for(kind).needs_key
    except ValueError:
        return True  # a kind this version doesn't know: look everywhere


# Other names a kind's key goes by: Google's own tools read GOOGLE_API_KEY for Gemini.
_ALSO = {"gemini": ("GOOGLE_API_KEY",)}


def key_variables(kind: str) -> tuple[str, ...]:
    """Every environment variable a kind's key may live in, the usual one first."""
    usual = key_variable(kind)
    return (*((usual,) if usual else ()), *_ALSO.get(kind, ()))


def key_variable(kind: str) -> str:
    """The environment variable a provider kind's key usually lives in ('' for none)."""
    from routing.presets import preset_for

    try:
        return preset_for(kind).key_env
    except ValueError:
        return ""


def with_keys(
    providers: Iterable[ProviderConfig], keystore: KeyStore, environ: Mapping[str, str] = os.environ
) -> list[ProviderConfig]:
    """The providers with their keys filled in: config, else keyring, else environment."""
    filled = []
    unindexed: list[str] = []  # keys found without an index: the index is written from them
    register_proxy_userinfo(environ)  # a proxy's error may name its address
    for provider in providers:
        register_url_userinfo(provider.base_url)  # errors and notices name the address
        key = provider.api_key
        if not key and (_needs_key(provider.kind) or keystore.may_hold(provider.id)):
            key = keystore.get(provider.id)
            if key and not provider.api_key:
                unindexed.append(provider.id)
        if not key:
            key = next((environ[v] for v in key_variables(provider.kind) if environ.get(v)), "")
        if key:
            register_secret(key)  # a provider may echo it back, in any form, in an error
        filled.append(provider.with_key(key) if key else provider)
    # Also starts the index on a first run. With no keyring backend nothing can be in
    # it, so an empty index is as true as any.
    keystore.note(unindexed, has_key=True)
    return filled
