"""`sightline chats`, `export` and `import`: the conversations, read back and brought in
without a window, so a chat made headless can be read headless."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.cli.common import CommandError, conversation_named, cut, open_store
from app.store.connection import shown_id
from vision.labels import shown_name

if TYPE_CHECKING:
    from app.config import Config
    from app.store import Store


def run(config: Config, args: argparse.Namespace) -> int:
    """Run `chats`, `export` or `import`."""
    store = open_store(config)
    try:
        if args.command == "chats":
            return _chats(store, as_json=args.json)
        if args.command == "export":
            return _export(store, args.conversation, args.format, args.output)
        return _import(store, args.file)
    finally:
        store.close()


TITLE_SHOWN = 200  # characters of a title or model in the listing; the export has it whole


def _chats(store: Store, *, as_json: bool) -> int:
    damaged = store.branches.damaged()
    rows: list[dict[str, Any]] = [
        {
            "id": chat.id,
            "title": cut(chat.title, TITLE_SHOWN),
            "updated": chat.updated_at,
            "model": cut(chat.model, TITLE_SHOWN) or "auto",
        }
        for chat in store.conversations.list()
        if chat.id not in damaged
    ]
    for conversation_id, what in damaged.items():
        print(
            f"sightline: left out the conversation {shown_name(shown_id(conversation_id))}, "
            f"which can't be read: its {what} (the file is damaged there).",
            file=sys.stderr,
        )
    if as_json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    for row in rows:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(row["updated"]))
        title = shown_name(row["title"]) or "New chat"
        print(f"{shown_name(row['id'])}\t{when}\t{shown_name(row['model'])}\t{title}")
    if not rows and not damaged:
        print("sightline: no conversations yet; start one with sightline ask", file=sys.stderr)
    return 0


def _export(store: Store, conversation_id: str, form: str, output: Path | None) -> int:
    from app.export import ExportError, snapshot
    from app.export_json import to_json, write_json
    from app.export_markdown import markdown, write_markdown

    conversation_named(store, conversation_id)
    try:
        exported = snapshot(store, conversation_id)
    except ExportError as exc:
        raise CommandError(f"{exc} `sightline chats` lists them.") from None
    if output is not None:
        writer = write_json if form == "json" else write_markdown
        try:
            written = writer(exported, output)
        except ExportError as exc:
            raise CommandError(str(exc)) from None
        print(f"sightline: wrote {written}", file=sys.stderr)
        return 0
    if form == "json":
        print(json.dumps(to_json(exported), ensure_ascii=False, indent=2))
        return 0
    sys.stdout.write(markdown(exported, "pictures"))
    if exported.pictures or exported.pdfs:
        print(
            "sightline: the pictures and PDFs are linked, not printed: "
            "use -o FILE to write them beside the file.",
            file=sys.stderr,
        )
    return 0


def _import(store: Store, path: Path) -> int:
    from app.export import ExportError
    from app.import_json import read_json
    from app.importer import add_to_store
    from app.store import StoreError

    try:
        exported = read_json(path)
    except ExportError as exc:
        raise CommandError(str(exc)) from None
    try:
        conversation_id = add_to_store(store, exported)
    except StoreError as exc:  # nothing was added: the import is one transaction
        raise CommandError(f"{exc} Nothing was imported.") from None
    print(conversation_id)
    return 0
