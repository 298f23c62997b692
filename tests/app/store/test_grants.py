"""Tools allowed for a whole chat: kept per chat, across a reopen, gone with the chat."""

from __future__ import annotations

from pathlib import Path

from app.store import Store


def test_a_grant_is_kept_per_chat_across_a_reopen(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    with Store.open(folder) as store:
        first, second = store.conversations.create(), store.conversations.create()
        assert store.grants.granted(first) == set()
        store.grants.grant(first, "read_file")
        store.grants.grant(first, "read_file")  # twice is once
        store.grants.grant(first, "mcp__clock")
    with Store.open(folder) as store:
        assert store.grants.granted(first) == {"read_file", "mcp__clock"}
        assert store.grants.granted(second) == set()


def test_a_chat_deleted_takes_its_grants(store: Store) -> None:
    doomed = store.conversations.create()
    store.grants.grant(doomed, "read_file")
    store.conversations.delete(doomed)
    assert store.grants.granted(doomed) == set()
