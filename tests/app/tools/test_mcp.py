"""MCP servers against a real stdio server (tests/servers/mcp_server.py): no mocks."""

from __future__ import annotations

import asyncio
import base64
import io
import logging
import os
import struct
import sys
import time
import zlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import types
from PIL import Image

from app.tools.base import Tool
from app.tools.mcp import (
    MAX_NAME,
    McpHub,
    McpServer,
    McpStartError,
    McpTool,
    offered_name,
)
from app.tools.mcp_config import McpServerConfig, parse_mcp_servers
from app.tools.mcp_results import tool_result_from_mcp
from routing.transcript import PicturePart, TextPart, ToolCall
from tests.servers.mcp_server import STDERR_ENV, STUBBORN_ENV, TINY_SIZE, tiny_png

ROOT = Path(__file__).resolve().parents[3]
TEST_TOOLS = {"echo", "tiny_image", "broken_image", "fail", "crash", "sleep"}


def test_server(name: str = "test", **env: str) -> McpServerConfig:
    """The settings of the real test server, run by this Python."""
    return McpServerConfig(name, sys.executable, ("-m", "tests.servers.mcp_server"), env, str(ROOT))


test_server.__test__ = False  # type: ignore[attr-defined]  # a helper, not a test


@pytest.fixture
async def server() -> AsyncIterator[McpServer]:
    """A started test server, with a short call timeout so hangs end fast."""
    mcp = McpServer(test_server(), timeout=20)
    await mcp.ensure_started()
    try:
        yield mcp
    finally:
        await mcp.close()


async def pid_of(server: McpServer) -> int:
    """The pid of the server's current child, as the child itself reports it."""
    return int((await server.call("pid", {})).text)


def gone(pid: int) -> bool:
    """Whether no process has this pid any more (a zombie still counts as there)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def wait_until_gone(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while not gone(pid):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


# -- tools and results -----------------------------------------------------------


async def test_tools_are_offered_with_prefixed_names_and_schemas(server: McpServer) -> None:
    tools = await server.tools()
    by_name = {tool.spec.name: tool for tool in tools}
    assert {f"test__{name}" for name in TEST_TOOLS} <= set(by_name)
    echo = by_name["test__echo"]
    assert isinstance(echo, McpTool) and echo.tool_name == "echo"
    assert echo.spec.description == "Say the text back, unchanged."
    assert echo.spec.parameters["type"] == "object"
    assert echo.spec.parameters["properties"]["text"]["type"] == "string"
    assert echo.spec.parameters["required"] == ["text"]
    assert by_name["test__tiny_image"].spec.parameters["properties"] == {}


async def test_echo_through_the_tool_protocol(server: McpServer) -> None:
    (echo,) = [t for t in await server.tools() if t.spec.name == "test__echo"]
    tool: Tool = echo
    result = await tool.run(ToolCall("call-1", "test__echo", {"text": "hello there"}))
    assert result.call_id == "call-1" and result.name == "test__echo"
    assert result.parts == (TextPart("hello there"),)
    assert not result.is_error


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


async def test_a_broken_image_becomes_a_note(server: McpServer) -> None:
    result = await server.call("broken_image", {})
    assert not result.is_error and result.pictures == ()
    assert "returned a picture (image/png) that could not be read" in result.text
    assert "not a picture Sightline can read" in result.text


async def test_a_tool_error_is_an_error_result(server: McpServer) -> None:
    result = await server.call("fail", {"message": "the disk is full"})
    assert result.is_error and result.text == "the disk is full"


async def test_bad_arguments_and_unknown_tools_are_error_results(server: McpServer) -> None:
    assert (await server.call("echo", {})).is_error
    assert (await server.call("no_such_tool", {})).is_error
    assert (await server.call("echo", {"text": "still fine"})).text == "still fine"


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


async def test_calls_run_side_by_side(server: McpServer) -> None:
    started = time.monotonic()
    results = await asyncio.gather(*(server.call("sleep", {"seconds": 0.6}) for _ in range(3)))
    assert [r.text for r in results] == ["slept 0.6"] * 3
    assert time.monotonic() - started < 1.5  # not one after another


# -- failures --------------------------------------------------------------------


async def test_a_crash_mid_call_is_an_error_and_the_next_call_restarts(server: McpServer) -> None:
    before = await pid_of(server)
    result = await server.call("crash", {}, offered_as="test__crash")
    assert result.is_error and result.name == "test__crash"
    assert "The MCP server test stopped while running crash" in result.text
    assert await wait_until_gone(before)
    again = await server.call("echo", {"text": "back again"})
    assert again.text == "back again" and not again.is_error
    assert await pid_of(server) != before


async def test_a_server_that_died_while_idle_is_restarted(server: McpServer) -> None:
    before = await pid_of(server)
    os.kill(before, 9)
    assert await wait_until_gone(before)
    first = await server.call("echo", {"text": "hi"})
    if first.is_error:
        # The call raced the news of the death: it says the server stopped, and the
        # next call starts it again (SPEC: "the next call may start it again").
        assert "stopped" in first.text
        first = await server.call("echo", {"text": "hi"})
    assert first.text == "hi" and await pid_of(server) != before


async def test_a_hanging_call_times_out() -> None:
    mcp = McpServer(test_server(), timeout=0.5)
    try:
        before = await pid_of(mcp)
        started = time.monotonic()
        result = await mcp.call("sleep", {"seconds": 30})
        assert time.monotonic() - started < 5
        assert result.is_error
        assert "did not finish sleep within 0.5 s" in result.text
        assert (await mcp.call("echo", {"text": "ok"})).text == "ok"
        assert await pid_of(mcp) == before  # a timeout doesn't cost the server
    finally:
        await mcp.close()


async def test_cancelling_a_call_propagates_and_the_server_keeps_working(
    server: McpServer,
) -> None:
    before = await pid_of(server)
    task = asyncio.create_task(server.call("sleep", {"seconds": 30}))
    await asyncio.sleep(0.3)  # the call is on the server by now
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    async with asyncio.timeout(5):
        assert (await server.call("echo", {"text": "after"})).text == "after"
    assert await pid_of(server) == before


async def test_a_missing_command_is_an_error_result_naming_it() -> None:
    mcp = McpServer(McpServerConfig("files", "npx-sightline-missing", ("-y", "pkg")))
    result = await mcp.call("read", {}, call_id="c9")
    assert result.is_error and result.call_id == "c9"
    assert "The MCP server files could not start" in result.text
    assert '"npx-sightline-missing" was not found' in result.text
    assert "full path" in result.text
    with pytest.raises(McpStartError, match="was not found"):
        await mcp.ensure_started()
    await mcp.close()


async def test_npx_missing_says_to_install_node(tmp_path: Path) -> None:
    mcp = McpServer(McpServerConfig("files", "npx", env={"PATH": str(tmp_path)}))
    with pytest.raises(McpStartError, match=r"Install Node\.js"):
        await mcp.ensure_started()


async def test_a_server_that_exits_at_once_reports_its_last_words() -> None:
    code = "import sys; print('missing API key', file=sys.stderr); sys.exit(2)"
    mcp = McpServer(McpServerConfig("quitter", sys.executable, ("-c", code)))
    with pytest.raises(McpStartError) as caught:
        await mcp.ensure_started()
    assert "exited before it was ready" in str(caught.value)
    assert "missing API key" in str(caught.value)


async def test_a_server_that_never_answers_times_out_starting() -> None:
    code = "import time; time.sleep(60)"
    mcp = McpServer(McpServerConfig("mute", sys.executable, ("-c", code)), start_timeout=0.5)
    with pytest.raises(McpStartError, match=r"did not answer within 0\.5 s"):
        await mcp.ensure_started()
    await mcp.close()


async def test_cancelling_a_start_propagates_at_once_and_leaves_no_child(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    code = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(60)"
    mcp = McpServer(McpServerConfig("mute", sys.executable, ("-c", code, str(pid_file))))
    task = asyncio.create_task(mcp.ensure_started())
    async with asyncio.timeout(5):
        while not pid_file.exists() or not pid_file.read_text():
            await asyncio.sleep(0.05)
    task.cancel()
    started = time.monotonic()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 0.5  # the child is stopped in the background
    await mcp.close()
    assert gone(int(pid_file.read_text()))


# -- the hub ---------------------------------------------------------------------


async def test_hub_leaves_out_servers_that_fail_and_keeps_their_problems() -> None:
    configs = parse_mcp_servers(
        '{"mcpServers": {"gone": {"command": "sightline-no-such-program"},'
        ' "remote": {"url": "https://mcp.example.com/mcp"}}}'
    )
    hub = McpHub([*configs, test_server()])
    try:
        tools = await hub.tools()
        names = {tool.spec.name for tool in tools}
        assert "test__echo" in names
        assert not any(name.startswith(("gone", "remote")) for name in names)
        assert set(hub.problems) == {"gone", "remote"}
        assert '"sightline-no-such-program" was not found' in hub.problems["gone"]
        assert "remote MCP servers are not supported yet" in hub.problems["remote"]
    finally:
        await hub.aclose()


async def test_hub_names_never_clash_between_servers() -> None:
    hub = McpHub([test_server("my server"), test_server("my_server")])
    try:
        names = [tool.spec.name for tool in await hub.tools()]
        assert len(names) == len(set(names))
        assert "my_server__echo" in names
        other = [n for n in names if n.startswith("my_server__echo_")]
        assert len(other) == 1
        (tool,) = [t for t in await hub.tools() if t.spec.name == other[0]]
        assert (await tool.run(ToolCall("1", other[0], {"text": "x"}))).text == "x"
    finally:
        await hub.aclose()


# -- the child's surroundings ----------------------------------------------------


async def test_stderr_goes_to_the_log_not_the_terminal(
    caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.INFO, logger="app.tools.mcp")
    mcp = McpServer(test_server(**{STDERR_ENV: "starting up|ready to serve"}))
    try:
        await mcp.ensure_started()
        deadline = time.monotonic() + 5
        while "ready to serve" not in caplog.text and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
    finally:
        await mcp.close()
    lines = [r for r in caplog.records if r.name == "app.tools.mcp" and r.levelno == logging.INFO]
    messages = [r.getMessage() for r in lines]
    assert "MCP server test: starting up" in messages
    assert "MCP server test: ready to serve" in messages
    assert "ready to serve" not in capfd.readouterr().err


async def test_the_child_gets_a_safe_environment_plus_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SIGHTLINE_TEST_SECRET", "do-not-pass")
    mcp = McpServer(test_server(GREETING="hello"))
    try:
        assert (await mcp.call("env", {"name": "GREETING"})).text == "hello"
        assert (await mcp.call("env", {"name": "SIGHTLINE_TEST_SECRET"})).text == "<unset>"
        assert (await mcp.call("env", {"name": "PATH"})).text == os.environ["PATH"]
    finally:
        await mcp.close()


async def test_close_leaves_no_child_behind() -> None:
    mcp = McpServer(test_server())
    pid = await pid_of(mcp)
    assert not gone(pid)
    await mcp.close()
    assert gone(pid)  # stopped and reaped, not a zombie
    assert not mcp.started
    assert (await mcp.call("echo", {"text": "reopened"})).text == "reopened"
    await mcp.close()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM can't be ignored on Windows")
async def test_close_kills_a_server_that_will_not_stop() -> None:
    mcp = McpServer(test_server(**{STUBBORN_ENV: "1"}))
    pid = await pid_of(mcp)
    started = time.monotonic()
    await mcp.close()
    assert gone(pid)
    assert time.monotonic() - started < 10  # the SDK's grace periods, then SIGKILL


async def test_close_during_a_call_ends_the_call_with_an_error() -> None:
    mcp = McpServer(test_server())
    pid = await pid_of(mcp)
    task = asyncio.create_task(mcp.call("sleep", {"seconds": 30}))
    await asyncio.sleep(0.3)
    await mcp.close()
    result = await task
    assert result.is_error and "was closed while running sleep" in result.text
    assert gone(pid)


# -- names and mapping, without a server -----------------------------------------


def test_offered_names_are_safe_for_every_provider() -> None:
    assert offered_name("files", "read_file") == "files__read_file"
    assert offered_name("my.server", "get tiny/image") == "my_server__get_tiny_image"
    assert offered_name("1password", "x") == "mcp_1password__x"
    long = offered_name("a-very-long-server-name-indeed", "and_an_even_longer_tool_name_" * 3)
    assert len(long) == MAX_NAME
    other = offered_name("a-very-long-server-name-indeed", "and_an_even_longer_tool_name_" * 4)
    assert other != long and len(other) == MAX_NAME
    taken = {"files__read"}
    assert offered_name("files", "read", taken).startswith("files__read_")
    for name in (long, other, offered_name("ü" * 80, "ツール")):
        assert all(c.isascii() and (c.isalnum() or c in "_-") for c in name)
        assert len(name) <= MAX_NAME


def mapped(*content: types.ContentBlock, **fields: object) -> tuple[TextPart | PicturePart, ...]:
    result = types.CallToolResult(content=list(content), **fields)  # type: ignore[arg-type]
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
