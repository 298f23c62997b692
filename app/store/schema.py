"""The store's schema: the steps that take a database from each version to the next.

Each step takes the database from version i to i + 1 and runs in one transaction
with the `user_version` bump (`migrate`). Never edit a shipped step: a later
change (a new column, a new table) is a new step appended at the end.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from app.store.connection import StoreError, is_not_a_database

MIGRATIONS: list[str] = [
    # 1: conversations, items (messages and notices), pictures stored once.
    """
    CREATE TABLE conversations (
        id         TEXT PRIMARY KEY,
        title      TEXT NOT NULL DEFAULT '',
        model      TEXT NOT NULL DEFAULT '',
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE TABLE items (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        seq             INTEGER NOT NULL,
        created_at      REAL NOT NULL,
        kind            TEXT NOT NULL CHECK (kind IN ('message', 'notice')),
        role            TEXT,               -- messages only
        status          TEXT,               -- messages only: a MessageStatus
        model           TEXT NOT NULL DEFAULT '',
        text            TEXT NOT NULL DEFAULT '',   -- joined TextParts, or the notice's text
        parts           TEXT NOT NULL DEFAULT '[]', -- JSON: the non-text parts, in order
        notice_kind     TEXT,               -- notices only: a NoticeKind
        details         TEXT NOT NULL DEFAULT '',   -- notices only
        UNIQUE (conversation_id, seq)
    );
    CREATE TABLE pictures (
        sha256 TEXT PRIMARY KEY,
        mime   TEXT NOT NULL,
        width  INTEGER NOT NULL,
        height INTEGER NOT NULL,
        data   BLOB NOT NULL
    );
    -- Which items use which pictures, so unused pictures can be found without
    -- reading every item's JSON.
    CREATE TABLE item_pictures (
        item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
        sha256  TEXT NOT NULL REFERENCES pictures(sha256),
        PRIMARY KEY (item_id, sha256)
    );
    CREATE INDEX item_pictures_by_sha256 ON item_pictures(sha256);
    CREATE INDEX conversations_by_updated ON conversations(updated_at);
    """,
    # 2: models learned not to see (a picture refused), remembered across restarts.
    """
    CREATE TABLE blind_models (
        ref        TEXT PRIMARY KEY,
        learned_at REAL NOT NULL
    );
    """,
    # 3: a deleted conversation waits here until its Undo is over (NULL: not deleted).
    """
    ALTER TABLE conversations ADD COLUMN deleted_at REAL;
    """,
    # 4: PDFs a person attached, stored once (pages NULL: the count is unknown).
    """
    CREATE TABLE pdfs (
        sha256 TEXT PRIMARY KEY,
        pages  INTEGER,
        data   BLOB NOT NULL
    );
    CREATE TABLE item_pdfs (
        item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
        sha256  TEXT NOT NULL REFERENCES pdfs(sha256),
        PRIMARY KEY (item_id, sha256)
    );
    CREATE INDEX item_pdfs_by_sha256 ON item_pdfs(sha256);
    """,
    # 5: a streaming answer's words, one row per delta, folded into `items.text` when
    # it ends: an append is then one small insert, however long the answer grows.
    """
    CREATE TABLE item_chunks (
        id      INTEGER PRIMARY KEY,
        item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
        text    TEXT NOT NULL
    );
    CREATE INDEX item_chunks_by_item ON item_chunks(item_id, id);
    """,
    # 6: tools the person allowed for a whole conversation ("Allow in this chat").
    """
    CREATE TABLE tool_grants (
        conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        tool            TEXT NOT NULL,
        granted_at      REAL NOT NULL,
        PRIMARY KEY (conversation_id, tool)
    );
    """,
    # 7: a notice's crossing as facts (JSON), so the ledger needn't read its words.
    """
    ALTER TABLE items ADD COLUMN crossed TEXT NOT NULL DEFAULT '';
    """,
    # 8: the pictures and PDFs (by SHA-256) that have left this computer in each chat,
    # and what the person chose for a chat's earlier ones before they first leave.
    """
    CREATE TABLE sent_away (
        conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        sha256          TEXT NOT NULL,
        sent_at         REAL NOT NULL,
        PRIMARY KEY (conversation_id, sha256)
    );
    ALTER TABLE conversations ADD COLUMN earlier_pictures TEXT NOT NULL DEFAULT '';
    """,
    # 9: sight checks: what a probe picture showed a model of one endpoint, and when.
    """
    CREATE TABLE sight_checks (
        endpoint   TEXT NOT NULL,
        model      TEXT NOT NULL,
        verdict    TEXT NOT NULL CHECK (verdict IN ('sees', 'blind', 'unsure')),
        answer     TEXT NOT NULL DEFAULT '',
        checked_at REAL NOT NULL,
        PRIMARY KEY (endpoint, model)
    );
    """,
    # 10: versions. Each item follows a parent (NULL: the first), so a regenerated answer
    # or an edited message is a sibling of the one it replaces; a conversation shows the
    # branch that ends at its leaf. Items deleted wait for Undo; each chat keeps its own
    # system prompt and parameters (routing/chat_settings.py's JSON; '': none set).
    """
    ALTER TABLE items ADD COLUMN parent_id INTEGER;
    ALTER TABLE items ADD COLUMN deleted_at REAL;
    ALTER TABLE conversations ADD COLUMN leaf_id INTEGER;
    ALTER TABLE conversations ADD COLUMN settings TEXT NOT NULL DEFAULT '';
    UPDATE items SET parent_id = (
        SELECT before.id FROM items AS before
        WHERE before.conversation_id = items.conversation_id AND before.seq < items.seq
        ORDER BY before.seq DESC LIMIT 1
    );
    UPDATE conversations SET leaf_id = (
        SELECT id FROM items WHERE conversation_id = conversations.id ORDER BY seq DESC LIMIT 1
    );
    CREATE INDEX items_by_parent ON items(parent_id);
    """,
    # 11: an answer's stats (routing/answer_stats.py's JSON: tokens its provider counted,
    # time to its first word, how long it streamed); NULL when none were measured.
    """
    ALTER TABLE items ADD COLUMN stats TEXT;
    """,
    # 12: settings a model refused (a 400 naming its temperature, say), by its
    # `provider:model` ref, so they are never sent to it again, across restarts.
    """
    CREATE TABLE refused_settings (
        ref        TEXT NOT NULL,
        setting    TEXT NOT NULL,
        learned_at REAL NOT NULL,
        PRIMARY KEY (ref, setting)
    );
    """,
    # 13: context windows refusals stated (llama.cpp's n_ctx, OpenAI's "maximum context
    # length is N tokens"), by `provider:model` ref, so every later request fits them.
    """
    CREATE TABLE context_windows (
        ref        TEXT PRIMARY KEY,
        tokens     INTEGER NOT NULL,
        learned_at REAL NOT NULL
    );
    """,
    # 14: a long chat opens from its end. Its shown branch is found from the ids alone,
    # which this index holds (parent_id and deleted_at were added after the words, so
    # reading them from the table reads every item's words too); the last answer's
    # count is looked for among the answers that have stats.
    """
    CREATE INDEX items_branch ON items(conversation_id, seq, id, parent_id, deleted_at);
    CREATE INDEX items_with_stats ON items(conversation_id, seq) WHERE stats IS NOT NULL;
    """,
    # 15: a picture's words, asked for by the person ("Describe this picture"), kept with
    # the picture (gone when it is) for the screen reader and the picture viewer.
    """
    CREATE TABLE picture_words (
        sha256       TEXT PRIMARY KEY REFERENCES pictures(sha256) ON DELETE CASCADE,
        words        TEXT NOT NULL,
        looker       TEXT NOT NULL,
        described_at REAL NOT NULL
    );
    """,
    # 16: models the person marked blind themselves (whatever their listing says), by
    # `provider:model` ref, until they take the mark back.
    """
    CREATE TABLE marked_blind (
        ref       TEXT PRIMARY KEY,
        marked_at REAL NOT NULL
    );
    """,
    # 17: the messages that carry parts for a wire (an agent's working folder) have an
    # index of their own: a long chat opening no longer reads every item's parts to find
    # them. The pattern is app/store/items.py's CARRIED, written out as its query writes it.
    """
    CREATE INDEX items_carrying ON items(conversation_id, seq)
        WHERE parts LIKE '%"type": "carried"%';
    """,
    # 18: a send in a long chat finds its branch from every item's id, parent, kind and
    # role (app/store/recent.py): with kind and role in the branch's index too, that read
    # is the index's alone, not every item's row (a 5,000-item chat: 2.9 → 1.7 ms).
    """
    DROP INDEX items_branch;
    CREATE INDEX items_branch
        ON items(conversation_id, seq, id, parent_id, deleted_at, kind, role);
    """,
    # 19: a chat's `branch_stamp` counts the changes to its items' shape other than a new
    # item (a parent, the bin, a kind or role changed; an item removed), whoever writes
    # them: a send remembers a long chat's branch while the stamp stays, reading only the
    # items made since (app/store/shown_branch.py).
    """
    ALTER TABLE conversations ADD COLUMN branch_stamp INTEGER NOT NULL DEFAULT 0;
    CREATE TRIGGER items_reshaped
        AFTER UPDATE OF conversation_id, parent_id, deleted_at, kind, role ON items
    BEGIN
        UPDATE conversations SET branch_stamp = branch_stamp + 1
            WHERE id IN (OLD.conversation_id, NEW.conversation_id);
    END;
    CREATE TRIGGER items_removed AFTER DELETE ON items
    BEGIN
        UPDATE conversations SET branch_stamp = branch_stamp + 1 WHERE id = OLD.conversation_id;
    END;
    """,
]

# What `migrate` brings a database to; tests may swap MIGRATIONS for a longer list.
SCHEMA_VERSION: int = len(MIGRATIONS)


def migrate(db: sqlite3.Connection, path: Path) -> None:
    """Run the migration steps the database hasn't had yet, each atomically.

    Each step reads the version inside its own write transaction: two Sightlines
    opening a new folder at once then take turns, and the second finds the first's
    work done instead of repeating it.
    """
    while True:
        steps = MIGRATIONS
        db.execute("BEGIN IMMEDIATE")
        try:
            (version,) = db.execute("PRAGMA user_version").fetchone()
            if version > len(steps):
                raise StoreError(
                    f"{path} was written by a newer Sightline (schema {version}; this one "
                    f"knows {len(steps)}). Update Sightline or set SIGHTLINE_DATA_DIR "
                    "to another folder."
                )
            if version == len(steps):
                db.execute("COMMIT")
                return
            number = version + 1
            # The version bump is inside the same transaction as the step, so a
            # failed step leaves the database exactly as it was.
            for statement in _statements(steps[number - 1]):
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {number}")
            db.execute("COMMIT")
        except (sqlite3.Error, StoreError) as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            if isinstance(exc, StoreError) or is_not_a_database(exc):
                raise
            raise StoreError(f"Can't upgrade {path} to schema {number}: {exc}.") from None


def _statements(script: str) -> list[str]:
    """A migration step's SQL statements, one by one (in the caller's transaction)."""
    statements, start = [], 0
    for end, char in enumerate(script, start=1):
        # A ';' ends a statement only where SQLite says so (not inside a string).
        if char == ";" and sqlite3.complete_statement(script[start:end]):
            statements.append(script[start:end])
            start = end
    return statements
