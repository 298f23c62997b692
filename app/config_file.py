"""Writing the person's providers back to their config file, keeping everything else.

tomlkit edits the document in place, so the person's comments, order and other
settings survive. Keys are never written here: they go to the OS keyring. The
file is written whole, mode 0600, and a config folder made here is 0700.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import tomlkit
from tomlkit.items import AoT, Table
from tomlkit.toml_document import TOMLDocument

from app.config import MAX_CONFIG_BYTES, ConfigError
from app.config_check import SettingsError, read_settings_file
from app.private_files import make_private_folder, write_private
from routing.models import ProviderConfig
from routing.presets import preset_for


def _provider_table(provider: ProviderConfig, previous: Table | None) -> Table:
    table = previous if previous is not None else tomlkit.table()
    table["id"] = provider.id
    table["kind"] = provider.kind
    if provider.base_url and provider.base_url != preset_for(provider.kind).base_url:
        table["base_url"] = provider.base_url
    elif "base_url" in table:
        del table["base_url"]
    table["enabled"] = provider.enabled
    if provider.local is None:
        table.pop("local", None)
    else:
        table["local"] = provider.local
    return table


def save_providers(path: Path, providers: Iterable[ProviderConfig]) -> None:
    """Replace the file's `[[providers]]` with these, in this order; nothing else changes."""
    document = read_config_document(path)
    existing = document.get("providers")
    previous: dict[str, Table] = {}
    if isinstance(existing, AoT):
        previous = {str(t.get("id", t.get("kind"))): t for t in existing}
    tables = AoT([_provider_table(p, previous.get(p.id)) for p in providers])
    if "providers" in document:
        del document["providers"]
    document.append("providers", tables)
    write_config_text(path, tomlkit.dumps(document))


def read_config_document(path: Path) -> TOMLDocument:
    """The config file as tomlkit edits it (an empty one when there is no file), read
    within the config's cap; ConfigError, and nothing written, when it can't be read."""
    try:
        text = read_settings_file(path, MAX_CONFIG_BYTES, "config file") if path.exists() else ""
        return tomlkit.parse(text)
    except SettingsError as exc:  # a device, a folder, gigabytes, not UTF-8
        words = exc.problem
    except tomlkit.exceptions.ParseError as exc:
        words = str(exc)
    raise ConfigError(f"can't be updated: {words}", source=str(path))


def write_config_text(path: Path, text: str) -> None:
    """Write a settings file whole (0600; a missing folder made 0700); ConfigError if it can't."""
    # A crash mid-write must never leave the person with half a config file.
    try:
        make_private_folder(path.parent)
        write_private(path, text)
    except OSError as exc:
        raise ConfigError(f"can't be written: {exc.strerror or exc}", source=str(path)) from None
