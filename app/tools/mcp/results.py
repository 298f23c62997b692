"""An MCP tool result as Sightline's parts: words, pictures, and short notes for the rest.

Pictures are what seed 004's bug lost: an image block must always become a
picture (or, when it truly can't be read, a note that says so), never nothing.
"""

from __future__ import annotations

import base64
import json

from mcp import types

from routing.transcript import PicturePart, TextPart, ToolCall, ToolResult
from vision.pictures import PictureError, sniff


def tool_result_from_mcp(
    call: ToolCall, result: types.CallToolResult, *, server: str, tool: str
) -> ToolResult:
    """An MCP CallToolResult as Sightline's parts: words, pictures, and notes for the rest."""
    parts: list[TextPart | PicturePart] = []
    pictures = 0
    for block in result.content:
        if isinstance(block, types.TextContent):
            parts.append(TextPart(block.text))
        elif isinstance(block, types.ImageContent):
            pictures += 1
            parts.append(
                _picture(block.data, block.mime_type, server, f"image {pictures} from {tool}")
            )
        elif isinstance(block, types.AudioContent):
            size = _size_kb(block.data)
            parts.append(
                TextPart(
                    f"[the tool returned audio ({block.mime_type}, {size} KB); "
                    "Sightline does not send audio]"
                )
            )
        elif isinstance(block, types.ResourceLink):
            about = f": {block.description}" if block.description else ""
            parts.append(
                TextPart(f"[the tool pointed to a resource: {block.name} <{block.uri}>{about}]")
            )
        elif isinstance(block, types.EmbeddedResource):
            parts.append(_embedded(block.resource, server, tool))
    has_text = any(isinstance(b, types.TextContent) for b in result.content)
    if result.structured_content is not None and not has_text:
        parts.append(TextPart(json.dumps(result.structured_content, ensure_ascii=False)))
    if not parts:
        parts.append(TextPart("[the tool returned no content]"))
    return ToolResult(call.id, call.name, tuple(parts), is_error=bool(result.is_error))


def _picture(data: str, mime: str, server: str, label: str) -> TextPart | PicturePart:
    """A picture from base64, or a note saying why it could not be read."""
    if data.startswith("data:") and "," in data:  # a data URL where bare base64 belongs
        data = data.partition(",")[2]
    try:
        raw = base64.b64decode(data)
    except ValueError as exc:
        why = f"its base64 data is broken ({exc})"
    else:
        try:
            return PicturePart(sniff(raw, label=label))
        except PictureError as exc:
            why = str(exc)
    return TextPart(
        f"[the MCP server {server} returned a picture ({mime}) that could not be read: {why}]"
    )


def _embedded(
    resource: types.TextResourceContents | types.BlobResourceContents, server: str, tool: str
) -> TextPart | PicturePart:
    if isinstance(resource, types.TextResourceContents):
        return TextPart(resource.text)
    mime = resource.mime_type or "unknown type"
    if mime.startswith("image/"):  # a picture is a picture, however it was wrapped
        return _picture(resource.blob, mime, server, f"{resource.uri} from {tool}")
    size = _size_kb(resource.blob)
    return TextPart(
        f"[the tool returned a file {resource.uri} ({mime}, {size} KB); "
        "Sightline does not pass on files of this kind]"
    )


def _size_kb(base64_data: str) -> int:
    """The decoded size of base64 data in KB (at least 1), without decoding it."""
    return max(1, round(len(base64_data.rstrip("=")) * 3 / 4 / 1024))
