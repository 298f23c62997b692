"""A fake ACP agent, written with the SDK's agent side, scripted by its environment.

Run as `python -m tests.servers.acp_agent`. `FAKE_ACP` holds comma-separated
behaviours:

- `sees`: advertise `promptCapabilities.image` (else pictures must come as words)
- `load`: advertise `loadSession` and replay a session's history on `session/load`
- `think`, `plan`: stream a thought chunk / a plan before answering
- `tool`: report a tool call whose result carries a picture (and text); with `big`, a
  400×300 picture of noise (~480 KB of base64) instead of a 4×3 one
- `permission`: ask permission before the tool call; the answer is echoed back
- `exec-permission`: the same, for an execute tool running a two-line command (its
  title the command in backticks, its raw input the command, as coding agents ask)
- `auth`: refuse `session/new` with auth_required (a terminal sign-in method)
- `crash`: exit in the middle of answering; `hang`: stop sending mid-answer
- `garbage`: write a line that is not JSON mid-answer
- `long_line`: write one line of `FAKE_ACP_LINE_BYTES` bytes (100 MB unless set) mid-answer
- `flood`: send `FAKE_ACP_CHUNKS` word chunks (200,000 unless set) of 1,000 characters,
  a thought and a tool result of as many alongside, before answering
- `trickle`: send a tiny chunk every `FAKE_ACP_EVERY` seconds (2 unless set), never answering
- `models`: offer two models through a config option of category "model"
- `modes`: offer two modes (`ask`, `code`) as the session's `modes`
- `usage`: send a `usage_update` (context 1200 of 8000) and the prompt's token usage
- `embeds`: advertise `promptCapabilities.embeddedContext`; resources are logged
- `door`: start the `sightline` MCP server it was given in `session/new` (or
  `session/load`), call its `read_file` on the path the prompt names, and report
  the call as a tool call whose content is what the door returned (pictures too)

Every answer says what it got: `You said: TEXT (N pictures)` after the chunks, and
a `prompts.jsonl` line per prompt in `FAKE_ACP_LOG` (a folder) when it is set.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import sys
from pathlib import Path
from typing import Any

from acp import (
    Agent,
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
    RequestError,
    image_block,
    plan_entry,
    run_agent,
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
)
from acp.schema import (
    AcpMcpServer,
    AgentCapabilities,
    AuthenticateResponse,
    ClientCapabilities,
    CloseSessionResponse,
    ForkSessionResponse,
    HttpMcpServer,
    Implementation,
    ListSessionsResponse,
    LoadSessionResponse,
    McpServerStdio,
    PermissionOption,
    PromptCapabilities,
    ResumeSessionResponse,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    SseMcpServer,
    TerminalAuthMethod,
    ToolCallStatus,
    ToolCallUpdate,
    Usage,
    UsageUpdate,
)

McpServer = HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio

BEHAVIOURS = set(filter(None, os.environ.get("FAKE_ACP", "").split(",")))


def _picture_b64() -> str:
    from tests.pictures import noise_png, picture_bytes  # Pillow: with a tool result only

    data = noise_png((400, 300)) if "big" in BEHAVIOURS else picture_bytes("blue", (4, 3))
    return base64.b64encode(data).decode("ascii")


class FakeAgent(Agent):
    """The scripted agent."""

    def __init__(self) -> None:
        self.conn: Any = None
        self.model = "small"
        self.door: McpServerStdio | None = None  # the `sightline` entry of its mcpServers
        self.cancelled = False  # session/cancel came

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        _log({"initialize": protocol_version, "client": str(client_info)})
        return InitializeResponse(
            protocol_version=1,
            agent_capabilities=AgentCapabilities(
                load_session="load" in BEHAVIOURS,
                prompt_capabilities=PromptCapabilities(
                    image="sees" in BEHAVIOURS, embedded_context="embeds" in BEHAVIOURS
                ),
            ),
            agent_info=Implementation(name="fake-agent", version="1.0"),
            auth_methods=[
                TerminalAuthMethod(type="terminal", id="login", name="Log in", args=["login"])
            ]
            if "auth" in BEHAVIOURS
            else [],
        )

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[McpServer] | None = None,
        **kwargs: Any,
    ) -> NewSessionResponse:
        if "auth" in BEHAVIOURS:
            raise RequestError(-32000, "Authentication required")
        _log({"new_session": cwd, "mcp": [s.name for s in mcp_servers or []]})
        self._keep_door(mcp_servers)
        return NewSessionResponse(
            session_id="s-1", config_options=self._options(), modes=self._modes()
        )

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[McpServer] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse:
        _log({"load_session": session_id})
        self._keep_door(mcp_servers)
        await self.conn.session_update(session_id, update_agent_message_text("(replayed)"))
        return LoadSessionResponse()

    def _keep_door(self, mcp_servers: list[McpServer] | None) -> None:
        for server in mcp_servers or []:
            if (
                isinstance(server, McpServerStdio)
                and server.name == "sightline"
                and "door" in BEHAVIOURS
            ):
                self.door = server
                _log({"door_entry": [server.command, *server.args]})

    async def _through_door(self, session_id: str, path: str) -> None:
        """read_file through the door, as an agent's MCP client calls a tool."""
        from mcp import Client, StdioServerParameters, stdio_client
        from mcp import types as mcp_types

        entry = self.door
        if entry is None:
            _log({"door": "none offered"})
            return
        params = StdioServerParameters(
            command=entry.command,
            args=list(entry.args),
            env={v.name: v.value for v in entry.env or []},
        )
        async with Client(stdio_client(params), mode="legacy", cache=None) as client:
            result = await client.call_tool("read_file", {"path": path})
        content = []
        for item in result.content:
            if isinstance(item, mcp_types.TextContent):
                content.append(tool_content(text_block(item.text)))
            elif isinstance(item, mcp_types.ImageContent):
                content.append(tool_content(image_block(item.data, item.mime_type)))
        _log({"door": [c.content.type for c in content], "door_error": result.is_error})
        say = self.conn.session_update
        await say(
            session_id,
            start_tool_call("d-1", "sightline read_file", kind="read", raw_input={"path": path}),
        )
        status: ToolCallStatus = "failed" if result.is_error else "completed"
        await say(session_id, update_tool_call("d-1", status=status, content=content))

    def _options(self) -> list[Any] | None:
        if "models" not in BEHAVIOURS:
            return None
        return [
            SessionConfigOptionSelect(
                type="select",
                id="model",
                name="Model",
                category="model",
                current_value=self.model,
                options=[
                    SessionConfigSelectOption(value="small", name="Small"),
                    SessionConfigSelectOption(value="large", name="Large"),
                ],
            )
        ]

    def _modes(self) -> SessionModeState | None:
        if "modes" not in BEHAVIOURS:
            return None
        return SessionModeState(
            current_mode_id="ask",
            available_modes=[
                SessionMode(id="ask", name="Ask"),
                SessionMode(id="code", name="Code"),
            ],
        )

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> Any:
        _log({"set_mode": mode_id})
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: Any, **kwargs: Any
    ) -> Any:
        self.model = str(value)
        _log({"set_config_option": [config_id, value]})
        return SetSessionConfigOptionResponse(config_options=self._options() or [])

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        text = "".join(getattr(b, "text", "") for b in prompt)
        pictures = [b for b in prompt if getattr(b, "type", "") == "image"]
        _log({"prompt": text, "pictures": [p.mime_type for p in pictures], "model": self.model})
        resources = [b.resource for b in prompt if getattr(b, "type", "") == "resource"]
        if resources:
            _log({"resources": [[r.uri, r.mime_type, r.text] for r in resources]})
        say = self.conn.session_update
        if "think" in BEHAVIOURS:
            await say(session_id, update_agent_thought_text("Let me think."))
        if "plan" in BEHAVIOURS:
            await say(
                session_id,
                update_plan([plan_entry("Look", status="completed"), plan_entry("Answer")]),
            )
        await say(session_id, update_agent_message_text("Part one. "))
        if "permission" in BEHAVIOURS or "exec-permission" in BEHAVIOURS:
            asked = (
                ToolCallUpdate(
                    tool_call_id="t-1",
                    title="`rm -rf build`",
                    kind="execute",
                    raw_input={"command": "rm -rf build\necho cleaned", "description": "Clean"},
                )
                if "exec-permission" in BEHAVIOURS
                else ToolCallUpdate(tool_call_id="t-1", title="Read notes.txt", kind="read")
            )
            answer = await self.conn.request_permission(
                session_id=session_id,
                tool_call=asked,
                options=[
                    PermissionOption(option_id="yes", name="Allow", kind="allow_once"),
                    PermissionOption(option_id="always", name="Always", kind="allow_always"),
                    PermissionOption(option_id="no", name="Reject", kind="reject_once"),
                ],
            )
            outcome = answer.outcome
            chosen = getattr(outcome, "option_id", outcome.outcome)
            _log({"permission": chosen})
            if outcome.outcome == "cancelled":
                return PromptResponse(stop_reason="cancelled")
            await say(session_id, update_agent_message_text(f"[permission: {chosen}] "))
        if "tool" in BEHAVIOURS:
            await say(
                session_id,
                start_tool_call("t-1", "Screenshot", kind="read", raw_input={"where": "screen"}),
            )
            await say(
                session_id,
                update_tool_call(
                    "t-1",
                    status="completed",
                    content=[
                        tool_content(text_block("Here it is.")),
                        tool_content(image_block(_picture_b64(), "image/png")),
                    ],
                ),
            )
        if "door" in BEHAVIOURS:
            await self._through_door(session_id, text.strip())
        if "crash" in BEHAVIOURS:
            os._exit(3)
        if "garbage" in BEHAVIOURS:
            sys.stdout.buffer.write(b"this is not json\n")
            sys.stdout.buffer.flush()
            await asyncio.sleep(30)
        if "hang" in BEHAVIOURS:
            await asyncio.sleep(3600)
        if "long_line" in BEHAVIOURS:
            size = int(os.environ.get("FAKE_ACP_LINE_BYTES", "100000000"))
            head = b'{"jsonrpc":"2.0","method":"session/update","params":{"x":"'
            os.set_blocking(sys.stdout.fileno(), True)  # the SDK's transport made it non-blocking
            sys.stdout.buffer.write(head + b"a" * size + b'"}}\n')
            sys.stdout.buffer.flush()
            await asyncio.sleep(30)
        if "flood" in BEHAVIOURS and await self._flood(session_id):
            return PromptResponse(stop_reason="cancelled")
        if "trickle" in BEHAVIOURS:
            every = float(os.environ.get("FAKE_ACP_EVERY", "2"))
            while True:
                await say(session_id, update_agent_message_text("."))
                await asyncio.sleep(every)
        await say(
            session_id, update_agent_message_text(f"You said: {text} ({len(pictures)} pictures)")
        )
        if "usage" in BEHAVIOURS:
            await say(session_id, UsageUpdate(session_update="usage_update", used=1200, size=8000))
            return PromptResponse(
                stop_reason="end_turn",
                usage=Usage(input_tokens=900, output_tokens=300, total_tokens=1200),
            )
        return PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        _log({"cancel": session_id})
        self.cancelled = True

    # What the fake never offers (its capabilities say none of it): asked anyway, it says
    # so, as an agent without them does.

    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse | None:
        raise RequestError.method_not_found("authenticate")

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        raise RequestError.method_not_found("session/list")

    async def fork_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[McpServer] | None = None,
        **kwargs: Any,
    ) -> ForkSessionResponse:
        raise RequestError.method_not_found("session/fork")

    async def resume_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[McpServer] | None = None,
        **kwargs: Any,
    ) -> ResumeSessionResponse:
        raise RequestError.method_not_found("session/resume")

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse | None:
        raise RequestError.method_not_found("session/close")

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        _log({"ext_notification": method})

    async def _flood(self, session_id: str) -> bool:
        """Words, thoughts and a tool's output, until cancelled (True) or the count is sent."""
        say, piece = self.conn.session_update, "x" * 1000
        self.cancelled = False
        await say(session_id, start_tool_call("f-1", "Flood", kind="read", raw_input={}))
        for n in range(int(os.environ.get("FAKE_ACP_CHUNKS", "200000"))):
            if self.cancelled:
                _log({"flood_cancelled_after": n})
                return True
            await say(session_id, update_agent_message_text(piece))
            await say(session_id, update_agent_thought_text(piece))
            content = [tool_content(text_block(piece))]
            await say(session_id, update_tool_call("f-1", status="in_progress", content=content))
        return False


def _log(entry: dict[str, Any]) -> None:
    folder = os.environ.get("FAKE_ACP_LOG")
    if folder:
        with (Path(folder) / "prompts.jsonl").open("a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")


def read_log(folder: Path) -> list[dict[str, Any]]:
    """What the fake agent was asked, in order."""
    path = folder / "prompts.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def logged(folder: Path, entry: dict[str, Any], within: float = 10.0) -> list[dict[str, Any]]:
    """The log once `entry` is in it: the agent is another process, which logs a message when
    it reads it, a moment after Sightline has sent it (longer on a busy machine)."""
    deadline = asyncio.get_running_loop().time() + within
    while entry not in (log := read_log(folder)):
        if asyncio.get_running_loop().time() > deadline:
            break
        await asyncio.sleep(0.05)
    return log


if __name__ == "__main__":
    asyncio.run(run_agent(FakeAgent()))
