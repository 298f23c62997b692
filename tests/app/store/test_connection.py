"""Opening the store's file: WAL, the current schema, and every way it can't be opened
as a StoreError naming the file or folder and what to do."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.store import SCHEMA_VERSION, Store, StoreError, schema


def test_open_sets_wal_and_current_schema_version(tmp_path: Path) -> None:
    folder = tmp_path / "a" / "b" / "data"  # parents are created
    with Store.open(folder) as store:
        assert store.path == folder / Store.DB_NAME
    with sqlite3.connect(folder / Store.DB_NAME) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert SCHEMA_VERSION == len(schema.MIGRATIONS) >= 1


def test_uncreatable_folder_is_a_store_error_naming_it(tmp_path: Path) -> None:
    # A path under a regular file can't be created even by root.
    (tmp_path / "afile").write_text("not a folder")
    folder = tmp_path / "afile" / "data"
    with pytest.raises(StoreError) as caught:
        Store.open(folder)
    assert str(folder) in str(caught.value)
    assert "SIGHTLINE_DATA_DIR" in str(caught.value)


def test_folder_that_is_a_file_is_a_store_error(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("oops")
    with pytest.raises(StoreError, match=r"data folder .* is a file, not a folder"):
        Store.open(tmp_path / "data")


def test_non_database_file_is_a_store_error(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / Store.DB_NAME).write_bytes(b"This is a text file, not SQLite. " * 100)
    with pytest.raises(StoreError, match="not a Sightline database") as caught:
        Store.open(folder)
    assert str(folder / Store.DB_NAME) in str(caught.value)


def test_database_path_that_is_a_folder_is_a_store_error(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    (folder / Store.DB_NAME).mkdir(parents=True)
    with pytest.raises(StoreError, match="SIGHTLINE_DATA_DIR") as caught:
        Store.open(folder)
    assert str(folder / Store.DB_NAME) in str(caught.value)
