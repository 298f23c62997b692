"""A JSON export added back to the store as a new conversation, every version kept.

The export, read and checked whole first (`app.import_json`), is written in one
transaction (`Store.bulk`): a bad file writes nothing, and an import stopped half
way (Ctrl+C, a killed process) leaves no conversation behind. The items keep the
order they were made in and when, each after the one it followed in the export, and
the chat shows the branch the export marked as shown.
"""

from __future__ import annotations

from app.export import Exported
from app.store import Store
from app.store.bulk import NewItem


def add_to_store(store: Store, exported: Exported) -> str:
    """Add the exported conversation as a new one (its title and model kept); its id."""
    position = {entry.id: at for at, entry in enumerate(exported.entries)}
    items = [
        NewItem(
            entry.item, entry.created_at, None if entry.parent is None else position[entry.parent]
        )
        for entry in exported.entries
    ]
    shown = [at for at, entry in enumerate(exported.entries) if entry.shown]
    summary = exported.conversation
    return store.bulk.add_conversation(
        summary.title, summary.model, items, shown[-1] if shown else None
    )
