"""What the Settings dialog edits, with no Qt: the providers in the person's order and
the agents, their edits, and saving them.

The dialog's widgets only show a `ProviderList` and pass the person's edits to
it; everything that decides (ids, validation, order, where a key comes from,
what to write) lives here and in provider_drafts.py, so it is tested without a window.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import tomlkit
from tomlkit.items import AoT, Table

from app.agent_drafts import AgentDraft, agent_draft_from, draft_of, write_new_agents
from app.agent_servers import PastedAgent, unique_id
from app.config_file import read_config_document, write_config_text
from app.keys import KeyStore
from app.presenters.provider_drafts import (
    KeySource,
    ProviderDraft,
    draft_from,
    id_problem,
    next_free_id,
    url_problem,
)
from routing.models import ProviderConfig

# Read once so the dialog can tell "no keyring" before the person has typed any key.
KEYRING_PROBE = "sightline-keyring-check"


@dataclass(frozen=True)
class Problem:
    """A field that stops Save, and why."""

    index: int
    field: str  # "id" or "base_url"
    message: str


class ProviderList:
    """The configured providers in the person's order, and the edits made to them.

    Agents (kind "acp", Settings → Agents) are kept apart in `agents`: they have
    no address and no key, and no place in the order routing tries providers in.
    """

    def __init__(self, providers: Iterable[ProviderConfig], environ: Mapping[str, str]) -> None:
        """Drafts of the configured providers, in the file's order."""
        self.environ = environ
        configured = list(providers)
        self.drafts = [draft_from(p, environ) for p in configured if not p.is_agent]
        self.agents = [agent_draft_from(p) for p in configured if p.is_agent]
        self.removed: list[str] = []  # saved ids whose keys go on Save
        self.found: list[ProviderConfig] = []  # discovered servers that answered

    def ids(self, except_index: int | None = None) -> list[str]:
        """Every draft's id (but one), then every agent's: no two may be the same."""
        return [d.id for i, d in enumerate(self.drafts) if i != except_index] + [
            a.id for a in self.agents
        ]

    def add_agents(self, pasted: Iterable[PastedAgent]) -> list[AgentDraft]:
        """Add pasted agents (each id made free again here); the drafts added."""
        added: list[AgentDraft] = []
        for agent in pasted:
            draft = draft_of(agent)
            draft.id = unique_id(agent.id, self.ids())
            self.agents.append(draft)
            added.append(draft)
        return added

    def remove_agent(self, index: int) -> AgentDraft:
        """Drop an agent; the config file loses it on Save."""
        return self.agents.pop(index)

    def add(self, kind: str) -> int:
        """Add a provider of a kind, with the preset's address and a free id; its index."""
        draft = ProviderDraft(id=next_free_id(kind, self.ids()), kind=kind)
        draft.key_source = KeySource.ENVIRONMENT if self._env_key(draft) else KeySource.NONE
        self.drafts.append(draft)
        return len(self.drafts) - 1

    def add_found(self, found_index: int) -> int:
        """Make a discovered server a configured provider; its index."""
        provider = self.found.pop(found_index)
        draft = draft_from(provider, self.environ)
        draft.id = next_free_id(provider.id, self.ids())
        draft.key_source = KeySource.ENVIRONMENT if self._env_key(draft) else KeySource.NONE
        self.drafts.append(draft)
        return len(self.drafts) - 1

    def remove(self, index: int) -> None:
        """Drop a provider; its saved key is forgotten on Save."""
        draft = self.drafts.pop(index)
        if draft.saved_id:
            self.removed.append(draft.saved_id)

    def move(self, index: int, delta: int) -> int:
        """Move a provider up (-1) or down (+1); its new index."""
        target = max(0, min(len(self.drafts) - 1, index + delta))
        self.drafts.insert(target, self.drafts.pop(index))
        return target

    def reorder(self, serials: list[int]) -> None:
        """Put the drafts in this order (after a drag), by their serials."""
        by_serial = {d.serial: d for d in self.drafts}
        ordered = [by_serial.pop(s) for s in serials if s in by_serial]
        self.drafts = ordered + list(by_serial.values())

    def set_found(self, statuses: Iterable[tuple[ProviderConfig, bool]]) -> None:
        """Keep the discovered servers that answered and aren't configured yet."""
        taken = {d.id for d in self.drafts} | {d.to_config().base_url for d in self.drafts}
        self.found = [
            p
            for p, answered in statuses
            if p.discovered and answered and p.id not in taken and p.base_url not in taken
        ]

    def problems(self, index: int) -> dict[str, str]:
        """The fields of one draft that stop Save, with why."""
        draft = self.drafts[index]
        found = {
            # A repeated name is the later one's problem: the first keeps it.
            "id": id_problem(draft.id, self.ids()[:index] + [a.id for a in self.agents]),
            "base_url": url_problem(draft.base_url.strip()),
        }
        return {name: message for name, message in found.items() if message}

    def first_problem(self) -> Problem | None:
        """The first field, in list order, that stops Save."""
        for index in range(len(self.drafts)):
            for name, message in self.problems(index).items():
                return Problem(index, name, message)
        return None

    def configs(self) -> list[ProviderConfig]:
        """The providers to write, in order, then the agents."""
        return [d.to_config() for d in self.drafts] + [a.to_config() for a in self.agents]

    def _env_key(self, draft: ProviderDraft) -> str:
        variable = draft.key_variable
        return self.environ.get(variable, "") if variable else ""

    # -- keys (these may block on the OS keyring: call them off the UI thread) -----

    def look_up_keys(self, keystore: KeyStore) -> dict[int, KeySource]:
        """Where each draft's key comes from now, by serial (never reading it into the dialog).

        Runs off the UI thread: it works on a copy, and `use_key_sources` applies the answer.
        """
        keystore.get(KEYRING_PROBE)  # sets keystore.problem when there is no keyring
        sources: dict[int, KeySource] = {}
        for draft in list(self.drafts):
            if draft.config_key:
                sources[draft.serial] = KeySource.CONFIG
            elif draft.saved_id and keystore.get(draft.saved_id):
                sources[draft.serial] = KeySource.SAVED
            elif self._env_key(draft):
                sources[draft.serial] = KeySource.ENVIRONMENT
            else:
                sources[draft.serial] = KeySource.NONE
        return sources

    def use_key_sources(self, sources: Mapping[int, KeySource]) -> None:
        """Note where the keys are, for drafts still waiting to know."""
        for draft in self.drafts:
            if draft.key_source is KeySource.UNKNOWN and draft.serial in sources:
                draft.key_source = sources[draft.serial]

    def key_for_test(self, draft: ProviderDraft, keystore: KeyStore) -> str:
        """The key a connection test uses: the typed one, else the one in use now."""
        if draft.new_key.strip():
            return draft.new_key.strip()
        if draft.clear_key:
            return draft.config_key or self._env_key(draft)
        saved = keystore.get(draft.saved_id) if draft.saved_id else ""
        return draft.config_key or saved or self._env_key(draft)


def write_settings(path: Path, providers: ProviderList, keystore: KeyStore) -> None:
    """Write the providers to the config file, then store, move or forget their keys.

    Runs off the UI thread (the keyring may block). `save_providers` raises
    ConfigError without writing when the file is broken; then no key changes.
    """
    from app.config_file import save_providers

    # The new agents' tables first (command, args, env), which save_providers keeps.
    write_new_agents(path, providers.agents)
    save_providers(path, providers.configs())
    moves: dict[str, str] = {}
    forget = set(providers.removed)
    for draft in providers.drafts:
        renamed = bool(draft.saved_id) and draft.saved_id != draft.id
        if draft.clear_key:
            forget |= {draft.id, draft.saved_id} - {""}
        elif renamed and not draft.new_key.strip() and draft.key_source is KeySource.SAVED:
            moves[draft.id] = keystore.get(draft.saved_id)  # the key follows the new name
        if renamed:
            forget.add(draft.saved_id)
    for provider_id in sorted(forget):
        keystore.delete(provider_id)
    for provider_id, key in moves.items():
        if key:
            keystore.set(provider_id, key)
    for draft in providers.drafts:
        if draft.new_key.strip():
            keystore.set(draft.id, draft.new_key.strip())


def save_top_level(path: Path, values: Mapping[str, str | bool | int | list[str] | None]) -> None:
    """Set top-level keys of the config file (None removes one); everything else stays.

    A sibling of app.config_file.save_providers for the Tools page's keys
    (`mcp_config`, `auto_may_use_cloud`, `vision_model`), written the same way:
    tomlkit keeps the person's comments and order, and the file is replaced whole.
    """
    document = read_config_document(path)
    # A top-level key written after a table would land inside it: keep the tables last.
    tables = [(k, v) for k, v in list(document.items()) if isinstance(v, Table | AoT)]
    for key, _ in tables:
        del document[key]
    for key, value in values.items():
        if value is None:
            document.pop(key, None)
        else:
            document[key] = value
    for key, table in tables:
        document.append(key, table)
    write_config_text(path, tomlkit.dumps(document))  # whole, 0600
