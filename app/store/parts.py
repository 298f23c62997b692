"""Message parts to and from the store's rows: words in a column, the rest as JSON.

Pictures and PDFs are stored once each by SHA-256 (tables `pictures` and `pdfs`);
the JSON refers to them by hash, with the per-use label or file name beside it.
An export writes its parts in this same shape, and both are read back, every field
checked, by `app.store.part_reader`.

What a model or a tool wrote is stored with every secret in use redacted
(`routing.secrets.redact_secrets`): its words, its tool calls' arguments and the
words of tool results, whichever engine made them (a wire, an agent, Codex, the
door). A person's own message is kept as they wrote it; a wire's carried parts are
opaque and go back to the model as they came.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from app.store.fields import FieldError, Fields
from app.store.part_reader import read_part
from routing.secrets import redact_secrets
from routing.transcript import (
    CarriedPart,
    Part,
    PdfPart,
    PicturePart,
    ResultPart,
    TextPart,
    ToolCall,
    ToolResult,
)
from vision.pictures import Picture

if TYPE_CHECKING:
    from vision.pdf import PdfFile


@dataclass
class Encoded:
    """A message's parts as the store keeps them, and the blobs they use."""

    text: str = ""
    parts: list[dict[str, Any]] = field(default_factory=list)
    pictures: list[Picture] = field(default_factory=list)
    pdfs: list[PdfFile] = field(default_factory=list)


def encode_parts(parts: tuple[Part, ...], *, redacting: bool = True) -> Encoded:
    """Split parts into joined text, JSON for the rest, and the pictures and PDFs they use;
    every secret in use redacted from the words (`redacting=False`: a person's own)."""
    out = Encoded()
    text: list[str] = []
    clean = redact_secrets if redacting else _as_written
    for part in parts:
        if isinstance(part, TextPart):
            text.append(part.text)
        elif isinstance(part, ToolCall):
            out.parts.append(
                {
                    "type": "tool_call",
                    "id": part.id,
                    "name": part.name,
                    "arguments": _cleaned(dict(part.arguments), clean),
                }
            )
        elif isinstance(part, ToolResult):
            out.parts.append(
                {
                    "type": "tool_result",
                    "call_id": part.call_id,
                    "name": part.name,
                    "is_error": part.is_error,
                    "parts": [_encode_piece(piece, out, clean) for piece in part.parts],
                }
            )
        elif isinstance(part, PdfPart):
            pdf = part.pdf
            out.parts.append({"type": "pdf", "sha256": pdf.sha256, "name": pdf.name})
            out.pdfs.append(pdf)
        elif isinstance(part, CarriedPart):
            # A wire's opaque items (reasoning, thought signatures), kept for its next request.
            out.parts.append(
                {
                    "type": "carried",
                    "shape": part.shape,
                    "source": part.source,
                    "data": dict(part.data),
                }
            )
        else:
            out.parts.append(_encode_piece(part, out, clean))
    # Joined first: a secret split between two parts is whole again.
    out.text = clean("".join(text))
    return out


def _as_written(text: str) -> str:
    return text


def _cleaned(value: Any, clean: Callable[[str], str]) -> Any:
    """A JSON value with each of its texts cleaned, however deep it nests: copied a
    container at a time, without recursion (a model's arguments may nest hundreds deep)."""

    def copy_of(item: Any) -> Any:
        if isinstance(item, dict):
            return {}
        if isinstance(item, list):
            return []
        return clean(item) if isinstance(item, str) else item

    top = copy_of(value)
    pending = [(value, top)] if isinstance(value, dict | list) else []
    while pending:
        source, target = pending.pop()
        for key, item in source.items() if isinstance(source, dict) else enumerate(source):
            copied = copy_of(item)
            if isinstance(target, dict):
                target[key] = copied
            else:
                target.append(copied)
            if isinstance(item, dict | list):
                pending.append((item, copied))
    return top


def _encode_piece(piece: ResultPart, out: Encoded, clean: Callable[[str], str]) -> dict[str, Any]:
    if isinstance(piece, TextPart):
        return {"type": "text", "text": clean(piece.text)}
    if isinstance(piece, PicturePart):
        out.pictures.append(piece.picture)
        return _picture_ref(piece.picture)
    out.pictures.extend(piece.pictures)
    return {
        "type": "pages",
        "document": piece.document,
        "first": piece.first,
        "pictures": [_picture_ref(p) for p in piece.pictures],
        "extraction_error": piece.extraction_error,
        "total_pages": piece.total_pages,
    }


def _picture_ref(picture: Picture) -> dict[str, Any]:
    """A picture as the parts JSON refers to it; the label is per use, so it stays here."""
    return {"type": "picture", "sha256": picture.sha256, "label": picture.label}


class Blobs:
    """Pictures and PDFs read once per load, however many parts refer to them."""

    def __init__(self, db: sqlite3.Connection) -> None:
        """Read blobs from `db` on demand."""
        self._db = db
        self._pictures: dict[str, Picture | None] = {}
        self._pdfs: dict[str, PdfFile | None] = {}

    def keep(self, encoded: Encoded) -> None:
        """The pictures and PDFs just written, known as a read would give them (no label,
        no note: those are per use), so they are not read back."""
        for picture in encoded.pictures:
            self._pictures[picture.sha256] = replace(picture, label="", note="")
        for pdf in encoded.pdfs:
            self._pdfs[pdf.sha256] = replace(pdf, name="")

    def picture(self, sha256: str, label: str = "") -> Picture | None:
        """The stored picture with this hash, carrying `label`."""
        if sha256 not in self._pictures:
            row = self._db.execute(
                "SELECT mime, width, height, data FROM pictures WHERE sha256 = ?", (sha256,)
            ).fetchone()
            self._pictures[sha256] = (
                Picture(
                    data=bytes(row["data"]),
                    mime=row["mime"],
                    width=row["width"],
                    height=row["height"],
                    sha256=sha256,
                )
                if row
                else None
            )
        found = self._pictures[sha256]
        return replace(found, label=label) if found is not None and label else found

    def pdf(self, sha256: str, name: str) -> PdfFile:
        """The stored PDF with this hash, carrying `name`; a missing one is a damaged database."""
        if sha256 not in self._pdfs:
            # Loaded with the first stored PDF read: a turn of words needs none of it.
            from vision.pdf import PdfFile

            row = self._db.execute(
                "SELECT pages, data FROM pdfs WHERE sha256 = ?", (sha256,)
            ).fetchone()
            self._pdfs[sha256] = (
                PdfFile(bytes(row["data"]), "", sha256, row["pages"]) if row else None
            )
        found = self._pdfs[sha256]
        if found is None:
            raise sqlite3.DatabaseError(f"PDF {sha256} is missing")
        return replace(found, name=name)

    def picture_for(self, sha256: str, label: str, where: str) -> Picture:
        """The stored picture with this hash, carrying `label`; a missing one is a damaged
        database."""
        found = self.picture(sha256, label)
        if found is None:
            raise sqlite3.DatabaseError(f"picture {sha256} is missing")
        return found

    def pdf_for(self, sha256: str, name: str, where: str) -> PdfFile:
        """The stored PDF with this hash, carrying `name` (as `pdf`)."""
        return self.pdf(sha256, name)

    def decode(self, data: dict[str, Any]) -> Part:
        """One non-text part from its JSON, read as an export's are (`app.store.part_reader`);
        one that can't be read is a damaged database."""
        try:
            return read_part(Fields(data, "part"), self)
        except FieldError as exc:
            raise sqlite3.DatabaseError(str(exc)) from None


def link_blobs(db: sqlite3.Connection, item_id: int, encoded: Encoded) -> None:
    """Store each picture and PDF once (by SHA-256) and note that this item uses it."""
    for picture in encoded.pictures:
        db.execute(
            "INSERT OR IGNORE INTO pictures (sha256, mime, width, height, data) "
            "VALUES (?, ?, ?, ?, ?)",
            (picture.sha256, picture.mime, picture.width, picture.height, picture.data),
        )
        db.execute(
            "INSERT OR IGNORE INTO item_pictures (item_id, sha256) VALUES (?, ?)",
            (item_id, picture.sha256),
        )
    for pdf in encoded.pdfs:
        db.execute(
            "INSERT OR IGNORE INTO pdfs (sha256, pages, data) VALUES (?, ?, ?)",
            (pdf.sha256, pdf.pages, pdf.data),
        )
        db.execute(
            "INSERT OR IGNORE INTO item_pdfs (item_id, sha256) VALUES (?, ?)", (item_id, pdf.sha256)
        )


def append_parts(db: sqlite3.Connection, item_id: int, parts: tuple[Part, ...]) -> None:
    """Add parts (not text) after a message's others, its pictures linked."""
    encoded = encode_parts(parts)
    row = db.execute("SELECT parts FROM items WHERE id = ?", (item_id,)).fetchone()
    joined = json.loads(row["parts"]) + encoded.parts
    db.execute(
        "UPDATE items SET parts = ? WHERE id = ?", (json.dumps(joined, ensure_ascii=False), item_id)
    )
    link_blobs(db, item_id, encoded)
