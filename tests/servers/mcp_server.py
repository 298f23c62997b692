"""A real stdio MCP server with tools that exercise every kind of result, for tests.

Run it alone with `python -m tests.servers.mcp_server`; it speaks MCP over its
stdin and stdout. Set `SIGHTLINE_TEST_MCP_STDERR` to a text and the server writes
that text to its stderr (one line per `|`-separated piece) when it starts, so a
test can see where a server's stderr ends up; set `SIGHTLINE_TEST_MCP_PRINT_ENV` to
the name of a variable and it prints that variable's value to its stderr when it
starts, as a server that logs its settings (its token among them) does; set
`SIGHTLINE_TEST_MCP_EXIT` to a number and it exits with that status right after,
before any handshake; set `SIGHTLINE_TEST_MCP_STUBBORN=1` and it won't stop until
it is killed; set `SIGHTLINE_TEST_MCP_STARTED` to a file's path and it writes its
pid there as it starts serving, so a test can see that it was started, and when.
"""

from __future__ import annotations

import base64
import io
import os
import random
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from mcp import types
from mcp.server.mcpserver import MCPServer
from PIL import Image

if TYPE_CHECKING:
    from app.tools.mcp.config import McpServerConfig

STDERR_ENV = "SIGHTLINE_TEST_MCP_STDERR"
PRINT_ENV = "SIGHTLINE_TEST_MCP_PRINT_ENV"  # the name of a variable to print to stderr
EXIT_ENV = "SIGHTLINE_TEST_MCP_EXIT"  # exit with this status once started, before serving
# Set to 1 and the server ignores SIGTERM and lingers after stdin closes: only a kill stops it.
STUBBORN_ENV = "SIGHTLINE_TEST_MCP_STUBBORN"
STARTED_ENV = "SIGHTLINE_TEST_MCP_STARTED"  # a file to write the pid to once serving
TINY_SIZE = (36, 36)
ROOT = Path(__file__).resolve().parents[2]
ARGS = ("-m", "tests.servers.mcp_server")  # run by this Python, from the checkout


def settings(name: str = "test", **env: str) -> McpServerConfig:
    """This server as one of Sightline's MCP settings, with `env` set for its child."""
    from app.tools.mcp.config import McpServerConfig  # here: the server itself needs no app

    return McpServerConfig(name, sys.executable, ARGS, env, str(ROOT))


def entry(**env: str) -> dict[str, Any]:
    """This server as an entry of an `mcpServers` file, with `env` set for its child."""
    return {"command": sys.executable, "args": list(ARGS), **({"env": env} if env else {})}


def tiny_png() -> bytes:
    """A real PNG of about 4 KB: noise compresses badly, so the size stays near the raw one."""
    noise = random.Random(7).randbytes(TINY_SIZE[0] * TINY_SIZE[1] * 3)
    out = io.BytesIO()
    Image.frombytes("RGB", TINY_SIZE, noise).save(out, format="PNG")
    return out.getvalue()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def echo(text: str) -> types.CallToolResult:
    """Say the text back, unchanged."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


def tiny_image() -> types.CallToolResult:
    """Text, a PNG image block, text: the shape of server-everything's get-tiny-image."""
    return types.CallToolResult(
        content=[
            types.TextContent(type="text", text="This is a tiny image:"),
            types.ImageContent(type="image", data=_b64(tiny_png()), mime_type="image/png"),
            types.TextContent(type="text", text="The image above is a tiny noise pattern."),
        ]
    )


def broken_image() -> types.CallToolResult:
    """An image block that no picture library can open."""
    junk = _b64(b"this is not a picture at all")
    return types.CallToolResult(
        content=[types.ImageContent(type="image", data=junk, mime_type="image/png")]
    )


def fail(message: str) -> types.CallToolResult:
    """A result marked as an error."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], is_error=True
    )


def crash() -> types.CallToolResult:
    """Never returns: the process ends mid-call, as a crashing server does."""
    os._exit(3)


async def sleep(seconds: float) -> types.CallToolResult:
    """Takes its time, for timeouts and cancellation."""
    await anyio.sleep(seconds)
    return types.CallToolResult(content=[types.TextContent(type="text", text=f"slept {seconds}")])


def audio() -> types.CallToolResult:
    """An audio block (a WAV header and some silence)."""
    wav = b"RIFF" + b"\0" * 2044
    return types.CallToolResult(
        content=[types.AudioContent(type="audio", data=_b64(wav), mime_type="audio/wav")]
    )


def resource() -> types.CallToolResult:
    """One embedded text resource, then a link to another resource."""
    embedded = types.TextResourceContents(
        uri="file:///notes/readme.txt", mime_type="text/plain", text="The notes say hello."
    )
    return types.CallToolResult(
        content=[
            types.EmbeddedResource(type="resource", resource=embedded),
            types.ResourceLink(
                type="resource_link",
                uri="file:///notes/big.log",
                name="big.log",
                mime_type="text/plain",
                description="The whole log",
            ),
        ]
    )


def structured() -> types.CallToolResult:
    """Structured content with an empty content list."""
    data: dict[str, Any] = {"temperature": 21.5, "unit": "C"}
    return types.CallToolResult(content=[], structured_content=data)


def pid() -> types.CallToolResult:
    """The server's pid, so a test can check the process is gone after close."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=str(os.getpid()))])


def env(name: str, form: str = "raw") -> types.CallToolResult:
    """What the server's environment holds for one name, said `raw`, in `base64` or in
    `hex` (as a tool that dumps its settings encoded would)."""
    value = os.environ.get(name, "<unset>")
    said = {
        "raw": value,
        "base64": _b64(f'{{"{name}": "{value}"}}'.encode()),
        "hex": value.encode().hex(),
    }[form]
    return types.CallToolResult(content=[types.TextContent(type="text", text=said)])


TOOLS = (echo, tiny_image, broken_image, fail, crash, sleep, audio, resource, structured, pid, env)


def build() -> MCPServer:
    """The server with every test tool; built on demand, as MCPServer configures logging."""
    server: MCPServer = MCPServer("sightline-test", version="1.0", log_level="WARNING")
    for tool in TOOLS:
        server.add_tool(tool)
    return server


def main() -> None:
    """Serve over stdio until stdin closes."""
    if text := os.environ.get(STDERR_ENV):
        for line in text.split("|"):
            print(line, file=sys.stderr, flush=True)
    if name := os.environ.get(PRINT_ENV):
        print(
            f"starting with {name}={os.environ.get(name, '<unset>')}", file=sys.stderr, flush=True
        )
    if status := os.environ.get(EXIT_ENV):
        sys.exit(int(status))
    stubborn = os.environ.get(STUBBORN_ENV) == "1"
    if stubborn:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if marker := os.environ.get(STARTED_ENV):
        Path(marker).write_text(str(os.getpid()), encoding="utf-8")
    build().run("stdio")
    if stubborn:
        time.sleep(600)


if __name__ == "__main__":
    main()
