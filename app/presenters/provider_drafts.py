"""One provider as the Settings dialog edits it, with no Qt: its draft, the checks of its
name and address, the kinds offered, and where its key comes from."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum

from app.config import checked_base_url, ollama_address
from app.config_check import ID_PATTERN
from routing.models import ProviderConfig
from routing.presets import PRESETS, preset_for

CUSTOM_LABEL = "Your own server (OpenAI-compatible)"


def preset_label(kind: str) -> str:
    """The name a person knows a provider kind by."""
    return CUSTOM_LABEL if kind == "custom" else preset_for(kind).label


def menu_kinds() -> list[str]:
    """Every kind, in the order the Add menu offers them: big clouds, other clouds, local."""
    first = [k for k in ("openai", "anthropic") if k in PRESETS]
    cloud = [k for k, p in PRESETS.items() if not p.local_default and k not in first]
    local = [k for k, p in PRESETS.items() if p.local_default and k != "custom"]
    return first + cloud + local + (["custom"] if "custom" in PRESETS else [])


def next_free_id(base: str, taken: Iterable[str]) -> str:
    """`base`, else `base-2`, `base-3`, … : the first id not taken."""
    used = set(taken)
    if base not in used:
        return base
    return next(f"{base}-{n}" for n in itertools.count(2) if f"{base}-{n}" not in used)


def id_problem(provider_id: str, others: Iterable[str]) -> str:
    """Why an id can't be used ('' when it can); `others` are the ids before it."""
    if not provider_id:
        return "Give the provider a name."
    if not ID_PATTERN.match(provider_id):  # the config file's rule
        return "Use letters, digits, '.', '_' or '-', starting with a letter or digit."
    if provider_id in set(others):
        return "Another provider has this name."
    return ""


def url_problem(url: str) -> str:
    """Why a base URL can't be used ('' when it can; empty means the preset's address)."""
    if not url:
        return ""
    problem = checked_base_url(url)  # the same check as the config file's
    return f"This address can't be used: {problem}." if problem else ""


class KeySource(Enum):
    """Where a provider's key comes from before any edit in the dialog."""

    UNKNOWN = "unknown"  # still being looked up (the keyring may be slow)
    NONE = "none"
    CONFIG = "config"
    SAVED = "saved"  # the keyring, or this session's memory when there is none
    ENVIRONMENT = "environment"


_serials = itertools.count(1)


@dataclass
class ProviderDraft:
    """One provider as the dialog edits it; nothing is written until Save."""

    id: str
    kind: str
    base_url: str = ""  # as typed; "" is the preset's address
    enabled: bool = True
    local: bool | None = None
    api: str = ""  # an OpenAI-shape provider's endpoint, kept as the file says it
    saved_id: str = ""  # its id in the config file, "" for one added here
    config_key: str = field(default="", repr=False)  # api_key from the file, never shown
    key_source: KeySource = KeySource.UNKNOWN
    new_key: str = field(default="", repr=False)  # typed here, stored on Save
    clear_key: bool = False
    serial: int = field(default_factory=lambda: next(_serials))  # stable through renames

    @property
    def label(self) -> str:
        """The kind's name."""
        return preset_label(self.kind)

    @property
    def key_variable(self) -> str:
        """The environment variable its key usually lives in ('' for none)."""
        return preset_for(self.kind).key_env

    def default_url(self, environ: Mapping[str, str]) -> str:
        """The address used when the field is empty."""
        return ollama_address(environ) if self.kind == "ollama" else preset_for(self.kind).base_url

    def reach_url(self, environ: Mapping[str, str]) -> str:
        """The address to test: the typed one, else the default."""
        return self.base_url.strip().rstrip("/") or self.default_url(environ)

    def to_config(self) -> ProviderConfig:
        """The provider as the config file keeps it (no key)."""
        # An empty field is written as no base_url, so the preset (or OLLAMA_HOST) decides.
        url = self.base_url.strip().rstrip("/") or preset_for(self.kind).base_url
        return ProviderConfig(
            self.id, self.kind, url, enabled=self.enabled, local=self.local, api=self.api
        )


def draft_from(provider: ProviderConfig, environ: Mapping[str, str]) -> ProviderDraft:
    """A draft of a configured (or discovered) provider."""
    draft = ProviderDraft(
        id=provider.id,
        kind=provider.kind,
        enabled=provider.enabled,
        local=provider.local,
        api=provider.api,
        saved_id="" if provider.discovered else provider.id,
        config_key=provider.api_key,
    )
    defaults = (preset_for(provider.kind).base_url, draft.default_url(environ))
    draft.base_url = "" if provider.base_url in defaults else provider.base_url
    return draft


def key_note(draft: ProviderDraft, keyring_problem: str) -> tuple[str, str]:
    """(placeholder, note) for a draft's key field: where the key is, never what it is."""
    kept = (
        "No system keyring: kept until Sightline closes."
        if keyring_problem
        else "Stored in your system keyring."
    )
    variable = draft.key_variable
    needs = preset_for(draft.kind).needs_key
    if draft.new_key.strip():
        return "", f"The new key is saved when you press Save. {kept}"
    if draft.clear_key:
        rest = f" Sightline will use {variable} if it is set." if variable else ""
        return "Paste a new API key", f"The saved key is forgotten when you press Save.{rest}"
    source = draft.key_source
    if source is KeySource.UNKNOWN:
        return "Checking for a saved key…", ""
    if source is KeySource.CONFIG:
        return "••• in the config file", "Set as api_key in the config file, which comes first."
    if source is KeySource.SAVED:
        return "••• saved", f"{kept} Type a new key to replace it."
    if source is KeySource.ENVIRONMENT:
        return f"from {variable}", f"Taken from {variable}; a key typed here comes first."
    if needs:
        return "Paste your API key", kept
    return "Optional", "Most servers on this computer need no key."
