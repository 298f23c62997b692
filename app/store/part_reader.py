"""A message part read back from its JSON, every field checked: a stored row's or an export's.

The shape is the one `app.store.parts` writes (pictures and PDFs by SHA-256, with
the per-use label or file name beside them), and an export carries the same parts
(with its text parts among them). Fields older exports lack have their defaults. The
pictures and PDFs come from a `BlobSource`: the store's tables, or the export's own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from app.store.fields import Fields
from routing.transcript import (
    CarriedPart,
    PagesPart,
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

PART_TYPES = ("text", "picture", "pages", "pdf", "tool_call", "tool_result", "carried")
_PIECE_TYPES = ("text", "picture", "pages")  # what a tool result holds


class BlobSource(Protocol):
    """Where the pictures and PDFs that parts name by SHA-256 are found."""

    def picture_for(self, sha256: str, label: str, where: str) -> Picture:
        """The picture with this hash, carrying `label`; an error naming `where` if none."""
        ...

    def pdf_for(self, sha256: str, name: str, where: str) -> PdfFile:
        """The PDF with this hash, carrying `name`; an error naming `where` if none."""
        ...


def read_part(fields: Fields, blobs: BlobSource) -> Part:
    """One part from its JSON; FieldError names the field that is wrong."""
    kind = fields.choice("type", PART_TYPES)
    if kind == "tool_call":
        return ToolCall(fields.text("id"), fields.text("name"), fields.mapping("arguments", {}))
    if kind == "tool_result":
        return ToolResult(
            fields.text("call_id"),
            fields.text("name"),
            tuple(_read_piece(sub, blobs) for sub in fields.objects("parts")),
            fields.flag("is_error", False),
        )
    if kind == "pdf":
        sha256 = fields.text("sha256")
        return PdfPart(blobs.pdf_for(sha256, fields.text("name", ""), f"{fields.where}.sha256"))
    if kind == "carried":
        return CarriedPart(fields.text("shape"), fields.text("source"), fields.mapping("data"))
    return _read_piece(fields, blobs)


def _read_piece(fields: Fields, blobs: BlobSource) -> ResultPart:
    kind = fields.choice("type", _PIECE_TYPES)
    if kind == "text":
        return TextPart(fields.text("text"))
    if kind == "picture":
        return PicturePart(_picture(fields, blobs))
    return PagesPart(
        document=fields.text("document"),
        first=fields.whole("first"),
        pictures=tuple(_picture(ref, blobs) for ref in fields.objects("pictures")),
        extraction_error=fields.text("extraction_error"),
        total_pages=fields.maybe_whole("total_pages"),
    )


def _picture(fields: Fields, blobs: BlobSource) -> Picture:
    fields.choice("type", ("picture",), "picture")  # pages hold pictures and nothing else
    sha256 = fields.text("sha256")
    return blobs.picture_for(sha256, fields.text("label", ""), f"{fields.where}.sha256")
