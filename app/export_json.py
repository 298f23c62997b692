"""A conversation as one JSON document, for keeping: every version, every picture and PDF.

Every item in order, notices included, every version of a regenerated answer or an
edited message (each item names the one it follows, and the versions shown are
marked; an answer carries its stats), and every picture and PDF once with its facts,
SHA-256 and bytes in base64, so `app.import_json.read_json` gives back the same
messages, notices, versions, stats and bytes. A message's parts are written as the
store keeps them (`app.store.parts.encode_parts`), its words among them as text parts.
"""

from __future__ import annotations

import base64
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from app.export import Entry, Exported, ExportError
from app.private_files import write_private
from app.store.parts import encode_parts
from routing.transcript import Notice, Part, TextPart

FORMAT = "sightline.conversation"
VERSION = 2  # 2: items carry their id, the id they follow, and whether they are shown


def write_json(exported: Exported, path: Path) -> Path:
    """Write the conversation as one JSON document; returns the file written."""
    try:
        write_private(path, json.dumps(to_json(exported), ensure_ascii=False, indent=2) + "\n")
    except OSError as exc:
        raise ExportError(f"Can't write {path}: {exc.strerror or exc}.") from None
    return path


def to_json(exported: Exported) -> dict[str, Any]:
    """The export as JSON-ready data."""
    summary = exported.conversation
    return {
        "format": FORMAT,
        "version": VERSION,
        "conversation": {
            "id": summary.id,
            "title": summary.title,
            "model": summary.model,
            "created_at": summary.created_at,
            "updated_at": summary.updated_at,
        },
        "items": [_entry_json(entry) for entry in exported.entries],
        "pictures": [
            {
                "sha256": sha,
                "mime": picture.mime,
                "width": picture.width,
                "height": picture.height,
                "data": base64.b64encode(picture.data).decode("ascii"),
            }
            for sha, picture in exported.pictures.items()
        ],
        "pdfs": [
            {"sha256": sha, "pages": pdf.pages, "data": base64.b64encode(pdf.data).decode("ascii")}
            for sha, pdf in exported.pdfs.items()
        ],
    }


def _entry_json(entry: Entry) -> dict[str, Any]:
    item = entry.item
    place = {"id": entry.id, "parent": entry.parent, "shown": entry.shown}
    if isinstance(item, Notice):
        return place | {
            "type": "notice",
            "created_at": entry.created_at,
            "kind": item.kind.value,
            "text": item.text,
            "details": item.details,
            "crossed": asdict(item.crossed) if item.crossed else None,
        }
    message: dict[str, Any] = place | {
        "type": "message",
        "created_at": entry.created_at,
        "role": item.role,
        "model": item.model,
        "status": item.status.value,
        "parts": [_part_json(part) for part in item.parts],
    }
    if item.stats is not None and item.stats.known:
        # What was measured, and the speed it gives for whoever reads the file (not read back:
        # it follows from the rest).
        rate = item.stats.tokens_per_second
        speed = {} if rate is None else {"tokens_per_second": round(rate, 1)}
        message["stats"] = item.stats.to_json() | speed
    return message


def _part_json(part: Part) -> dict[str, Any]:
    """A part as the store keeps it; words too, which the store keeps in a column of their own."""
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    (encoded,) = encode_parts((part,)).parts
    return encoded
