"""MCP results as words and pictures: from the real stdio test server, and block by block."""

from __future__ import annotations

import base64
import io
import struct
import threading
import zlib
from typing import Any

import pytest
from mcp import types
from PIL import Image

from app.tools.mcp import server as server_module
from app.tools.mcp.results import tool_result_from_mcp
from app.tools.mcp.server import McpServer
from routing.transcript import PicturePart, ResultPart, TextPart, ToolCall, ToolResult
from tests.servers.mcp_server import TINY_SIZE, tiny_png


async def test_tiny_image_is_text_picture_text_in_order(server: McpServer) -> None:
    result = await server.call("tiny_image", {}, call_id="c", offered_as="test__tiny_image")
    assert not result.is_error
    first, middle, last = result.parts
    assert first == TextPart("This is a tiny image:")
    assert isinstance(middle, PicturePart)
    assert last == TextPart("The image above is a tiny noise pattern.")
    picture = middle.picture
    assert picture.mime == "image/png"
    assert (picture.width, picture.height) == TINY_SIZE
    assert picture.data == tiny_png() and 3_000 < picture.size_bytes < 6_000
    with Image.open(io.BytesIO(picture.data)) as image:
        assert image.format == "PNG" and image.size == TINY_SIZE
    assert result.pictures == (picture,)


async def test_pictures_are_opened_off_the_callers_thread_and_words_on_it(
    server: McpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Opening a picture decodes it whole (a 4K screenshot: ~60 ms); a turn calls from the
    # window's thread, which waits for none of it. Words alone need no thread.
    from app.tools.mcp import results

    read_on_main: list[bool] = []
    read = results.tool_result_from_mcp

    def watched(*given: Any, **named: Any) -> ToolResult:
        read_on_main.append(threading.current_thread() is threading.main_thread())
        return read(*given, **named)

    monkeypatch.setattr(server_module, "tool_result_from_mcp", watched)
    pictured = await server.call("tiny_image", {})
    worded = await server.call("pid", {})
    assert len(pictured.pictures) == 1 and worded.text.isdigit()
    assert read_on_main == [False, True]


async def test_a_broken_image_becomes_a_note(server: McpServer) -> None:
    result = await server.call("broken_image", {})
    assert not result.is_error and result.pictures == ()
    assert "returned a picture (image/png) that could not be read" in result.text
    assert "not a picture Sightline can read" in result.text


async def test_a_tool_error_is_an_error_result(server: McpServer) -> None:
    result = await server.call("fail", {"message": "the disk is full"})
    assert result.is_error and result.text == "the disk is full"


async def test_audio_resources_and_structured_content(server: McpServer) -> None:
    audio = await server.call("audio", {})
    assert (
        audio.text == "[the tool returned audio (audio/wav, 2 KB); Sightline does not send audio]"
    )
    resource = await server.call("resource", {})
    assert resource.parts[0] == TextPart("The notes say hello.")
    assert "big.log <file:///notes/big.log>" in resource.text
    structured = await server.call("structured", {})
    assert structured.parts == (TextPart('{"temperature": 21.5, "unit": "C"}'),)


def mapped(
    *content: types.ContentBlock, structured_content: dict[str, object] | None = None
) -> tuple[ResultPart, ...]:
    result = types.CallToolResult(content=list(content), structured_content=structured_content)
    return tool_result_from_mcp(ToolCall("c", "s__t"), result, server="s", tool="t").parts


def test_mapping_edge_cases() -> None:
    png = base64.b64encode(tiny_png()).decode()
    (picture,) = mapped(
        types.ImageContent(type="image", data=f"data:image/png;base64,{png}", mime_type="image/png")
    )
    assert isinstance(picture, PicturePart)
    (note,) = mapped(types.ImageContent(type="image", data="abc", mime_type="image/png"))
    assert isinstance(note, TextPart) and "base64 data is broken" in note.text
    blob = types.BlobResourceContents(uri="file:///shot.png", mime_type="image/png", blob=png)
    (shot,) = mapped(types.EmbeddedResource(type="resource", resource=blob))
    assert isinstance(shot, PicturePart) and shot.picture.mime == "image/png"
    zip_blob = types.BlobResourceContents(
        uri="file:///a.zip", mime_type="application/zip", blob="UEsDBA=="
    )
    (zip_note,) = mapped(types.EmbeddedResource(type="resource", resource=zip_blob))
    assert isinstance(zip_note, TextPart) and "file:///a.zip (application/zip" in zip_note.text
    text = types.TextContent(type="text", text="21.5 C")
    assert mapped(text, structured_content={"t": 21.5}) == (TextPart("21.5 C"),)
    assert mapped() == (TextPart("[the tool returned no content]"),)


def png_with_chunk(kind: bytes, body: bytes, crc: int) -> bytes:
    """The tiny PNG with one more chunk right after its header, carrying the given checksum."""
    png = tiny_png()
    after_header = 8 + 12 + 13  # signature, then the IHDR chunk
    chunk = struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)
    return png[:after_header] + chunk + png[after_header:]


def image_block(data: bytes) -> types.ImageContent:
    return types.ImageContent(
        type="image", data=base64.b64encode(data).decode(), mime_type="image/png"
    )


def test_a_png_with_a_broken_optional_chunk_is_still_a_picture() -> None:
    # server-everything's get-tiny-image has an iCCP chunk with a bad checksum,
    # which Pillow refuses and browsers ignore.
    good_crc = zlib.crc32(b"tEXtComment\0hi")
    assert isinstance(
        mapped(image_block(png_with_chunk(b"tEXt", b"Comment\0hi", good_crc)))[0], PicturePart
    )
    (part,) = mapped(image_block(png_with_chunk(b"iCCP", b"profile\0\0xyz", 1234)))
    assert isinstance(part, PicturePart)
    assert part.picture.data == tiny_png()  # the broken chunk left out, nothing else
    assert (part.picture.width, part.picture.height) == TINY_SIZE


def test_a_png_with_a_broken_header_is_a_note() -> None:
    png = bytearray(tiny_png())
    png[29] ^= 0xFF  # the IHDR checksum: a critical chunk is never dropped
    (part,) = mapped(image_block(bytes(png)))
    assert isinstance(part, TextPart) and "could not be read" in part.text
