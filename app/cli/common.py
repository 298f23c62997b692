"""What every command shares: its one-line failure, the config, the set-up and its store."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.assembly import Assembly
    from app.config import Config
    from app.store import ConversationSummary, Store


class CommandError(Exception):
    """A failure to report as one line, with a non-zero exit status."""


def cut(text: str, limit: int) -> str:
    """`text` within `limit` characters, a cut one ending in "…"."""
    return text if len(text) <= limit else text[:limit] + "…"


def load_settings() -> Config:
    from app.config import ConfigError, load_config
    from app.logs import setup_logging

    try:
        config = load_config()
    except ConfigError as exc:
        raise CommandError(str(exc)) from None
    if config.named_missing is not None:
        from app.config import missing_words

        print(missing_words(config.named_missing), file=sys.stderr)
    setup_logging(config.data_dir)
    return config


def set_up(config: Config) -> Assembly:
    """The command's set-up over the config's store (a one-line failure when the store
    can't be opened)."""
    from app.assembly import Assembly
    from app.store import StoreError

    try:
        return Assembly.open(config)
    except StoreError as exc:
        raise CommandError(str(exc)) from None


def open_store(config: Config) -> Store:
    """The config's store, for a command that needs nothing else of the set-up."""
    return set_up(config).store


def conversation_named(store: Store, conversation_id: str) -> ConversationSummary:
    """The conversation a command names, readable; a one-line failure when there is none
    (its id echoed within bounds) or it can't be read."""
    from app.store import StoreError
    from app.store.connection import shown_id

    summary = store.conversations.get(conversation_id)
    if summary is None:
        raise CommandError(
            f"there is no conversation {shown_id(conversation_id)}; `sightline chats` lists them."
        )
    try:
        store.branches.check(conversation_id)
    except StoreError as exc:
        raise CommandError(str(exc)) from None
    return summary


async def check_model(
    ref: str, catalogue: Any, *, auto_allowed: bool = True, agents: Sequence[str] = ()
) -> None:
    """Refuse a --model that names no model, before anything is stored or sent (`agents`:
    the configured agents' ids, named with the providers when neither is meant)."""
    from routing.refs import ref_halves
    from routing.router import is_auto

    if is_auto(ref):
        if auto_allowed:
            return
        raise CommandError("name the model to check as PROVIDER:MODEL (`sightline models`).")
    provider, name = ref_halves(ref.strip())
    ids = [p.id for p in catalogue.providers]
    if not provider:
        raise CommandError(
            f"--model {ref!r} names no provider: write PROVIDER:MODEL, such as "
            f"{_example(ids)}:{name or 'MODEL'}."
        )
    if provider in ids and not name:
        raise CommandError(
            f"--model {ref!r} names the provider but no model: write {provider}:MODEL "
            "(`sightline models` lists them)."
        )
    if provider in ids:
        return
    await catalogue.refresh()
    matches = [m.ref for m in catalogue.models() if m.name == ref.strip()]
    hint = (
        f"; did you mean {matches[0]}?"
        if matches
        else (
            f" (providers: {', '.join(ids) or 'none'}"
            + (f"; agents: {', '.join(agents)}" if agents else "")
            + "; `sightline models` lists their models)."
        )
    )
    raise CommandError(f"no provider {provider!r}{hint}")


def _example(ids: list[str]) -> str:
    return ids[0] if ids else "ollama"
