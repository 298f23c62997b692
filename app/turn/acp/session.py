"""One running agent for one chat: started, initialized, with a session and its model.

Starting is bounded (`START_SECONDS` for the program to answer `initialize` and
`session/new`). A chat that has talked to this agent before continues its session
with `session/load` where the agent offers it (the history it replays is already
stored, so it is dropped); otherwise a new session starts and the turn says the
agent doesn't remember the earlier turns.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from acp import PROTOCOL_VERSION, Client, RequestError
from acp.schema import (
    ClientCapabilities,
    EnvVariable,
    FileSystemCapabilities,
    Implementation,
    InitializeResponse,
    McpServerStdio,
)
from pydantic import ValidationError

from app.tools.door_line import TOKEN_ENV, DoorLine, line_supported
from app.tools.mcp.config import McpServerConfig
from app.turn.acp.client import SightlineClient
from app.turn.acp.door_calls import DoorCalls
from app.turn.acp.errors import INSTALL_HINT
from app.turn.acp.process import AgentProcess
from app.turn.agent_problems import AgentNeedsSignIn, AgentNotInstalled, AgentProblem, AgentStopped
from app.turn.sight_policy import SightPolicy
from routing.models import ProviderConfig

log = logging.getLogger(__name__)

START_SECONDS = 60.0  # to start and answer initialize and session/new (npx may download)
AUTH_REQUIRED = -32000  # the protocol's error code for "sign in first"


@dataclass(frozen=True)
class ModelOption:
    """A model the agent offers through its config options (category "model")."""

    config_id: str
    value: str
    name: str


@dataclass
class AgentSession:
    """A started agent with one session; `sees` is its `promptCapabilities.image`."""

    agent: ProviderConfig
    process: AgentProcess
    client: SightlineClient
    session_id: str = ""
    sees: bool = False
    embeds: bool = False  # its `promptCapabilities.embeddedContext`: PDFs as resources
    load_session: bool = False
    models: list[ModelOption] = field(default_factory=list)
    current_model: str = ""  # the model option's current value ("" when none is offered)
    modes: list[ModelOption] = field(default_factory=list)  # its modes (config_id "" : set_mode)
    current_mode: str = ""
    remembered: bool = True  # False: a new session for a chat with earlier turns
    line: DoorLine | None = None  # the door's line to this turn, when the door is offered
    prompt: asyncio.Task[Any] | None = None  # the turn's `session/prompt`, while it runs

    @property
    def running(self) -> bool:
        """Whether the program still runs and its connection is sound."""
        return self.process.running

    async def close(self) -> None:
        """End the turn's prompt, the program, and the door's line."""
        if self.prompt is not None:
            self.prompt.cancel()
            with contextlib.suppress(BaseException):
                await self.prompt
        await self.process.close()
        if self.line is not None:
            await self.line.close()


@dataclass(frozen=True)
class DoorOffer:
    """Sightline's own tools offered to this agent through the door (`sightline
    mcp-serve`): run by this turn over the door's line (where there can be one), who
    looks at their pictures for an agent that doesn't take them, and, for a door with no
    line, whether the run allows its calls (headless `--allow-tools`)."""

    sight: SightPolicy
    allowed: bool = False
    asks: bool = True  # the door hands each call to this turn over a line (where it can)


def label_of(agent: ProviderConfig) -> str:
    """How an agent is named in messages: its id."""
    return agent.id


async def start_agent(
    agent: ProviderConfig,
    cwd: Path,
    mcp_servers: Sequence[McpServerConfig] = (),
    earlier_session: str = "",
    timeout: float = START_SECONDS,
    door: DoorOffer | None = None,
) -> AgentSession:
    """Start the agent, initialize, and open (or load) a session in `cwd`; with `door`, the
    agent is offered Sightline's own tools too."""
    process = AgentProcess(label_of(agent))
    client = SightlineClient()
    session = AgentSession(agent, process, client)
    try:
        if door is not None and door.asks and line_supported():
            session.line = DoorLine(DoorCalls(session, cwd, door.sight))
            await session.line.open()
        await asyncio.wait_for(_open(session, cwd, mcp_servers, earlier_session, door), timeout)
    except BaseException as exc:
        await session.close()
        if isinstance(exc, AgentProblem | asyncio.CancelledError):
            raise
        raise _start_problem(agent, process, exc, timeout) from None
    return session


async def info_of(agent: ProviderConfig, cwd: Path, timeout: float) -> InitializeResponse:
    """What the agent says of itself at `initialize` (its sight, for `sightline models`)."""
    process = AgentProcess(label_of(agent))
    try:
        connection = await _spawn(agent, process, SightlineClient(), cwd)
        return await asyncio.wait_for(_initialize(connection), timeout)
    except BaseException as exc:
        if isinstance(exc, AgentProblem | asyncio.CancelledError):
            raise
        raise _start_problem(agent, process, exc, timeout) from None
    finally:
        await process.close()


async def _spawn(
    agent: ProviderConfig, process: AgentProcess, client: SightlineClient, cwd: Path
) -> Any:
    # The person's environment (agents read their keys and config from it), then the config's.
    env = {**os.environ, **dict(agent.env)}
    try:
        # The SDK's Client protocol names every optional method; the rest are refused.
        return await process.start(cast(Client, client), agent.command, agent.args, env, cwd)
    except FileNotFoundError:
        raise AgentNotInstalled(
            f"The agent {agent.id}'s command {agent.command!r} is not installed here (it is "
            f"not on PATH, nor a file). {INSTALL_HINT}"
        ) from None
    except PermissionError:
        raise AgentNotInstalled(
            f"The agent {agent.id}'s command {agent.command!r} can't be run (it is not executable)."
        ) from None


async def _initialize(connection: Any) -> InitializeResponse:
    from app.version import installed_version

    response: InitializeResponse = await connection.initialize(
        protocol_version=PROTOCOL_VERSION,
        # No file system and no terminal: the agent works in its own folder itself.
        client_capabilities=ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=False, write_text_file=False), terminal=False
        ),
        client_info=Implementation(
            name="sightline", title="Sightline", version=installed_version()
        ),
    )
    return response


async def _open(
    session: AgentSession,
    cwd: Path,
    mcp_servers: Sequence[McpServerConfig],
    earlier_session: str,
    door: DoorOffer | None = None,
) -> None:
    agent = session.agent
    connection = await _spawn(agent, session.process, session.client, cwd)
    info = await _initialize(connection)
    capabilities = info.agent_capabilities
    prompt = capabilities.prompt_capabilities if capabilities else None
    session.sees = bool(prompt and prompt.image)
    session.embeds = bool(prompt and prompt.embedded_context)
    session.load_session = bool(capabilities and capabilities.load_session)
    servers = [_mcp_entry(s) for s in mcp_servers if not s.unsupported]
    if door is not None:
        servers.append(_door_entry(agent, door, session.line, sees=session.sees))
    try:
        if earlier_session and session.load_session:
            session.client.session_id = earlier_session
            session.client.replaying = True  # the history it replays is stored already
            try:
                loaded = await connection.load_session(
                    cwd=str(cwd), session_id=earlier_session, mcp_servers=servers
                )
                session.session_id = earlier_session
                _read_options(session, loaded)
                return
            except RequestError as exc:
                if exc.code == AUTH_REQUIRED:
                    raise
                log.info("%s could not load session %s: %s", agent.id, earlier_session, exc)
            finally:
                session.client.replaying = False
        created = await connection.new_session(cwd=str(cwd), mcp_servers=servers)
    except RequestError as exc:
        if exc.code == AUTH_REQUIRED:
            raise _sign_in(agent, info) from None
        raise AgentProblem(
            f"The agent {agent.id} could not start a session: {exc}", detail=str(exc.data)
        ) from None
    session.session_id = created.session_id
    session.client.session_id = created.session_id
    session.remembered = not earlier_session
    _read_options(session, created)


MAX_OPTIONS = 200  # models or modes of one agent kept: a picker, not a catalogue


def _read_options(session: AgentSession, response: Any) -> None:
    """The models and modes the agent offers: its config options of category "model" and
    "mode", else (for modes) the session's `modes`."""
    for option in getattr(response, "config_options", None) or ():
        category = getattr(option, "category", None)
        if category not in ("model", "mode") or getattr(option, "type", "") != "select":
            continue
        found = session.models if category == "model" else session.modes
        if found:
            continue  # the first option of each category is the one
        for entry in option.options:
            for choice in getattr(entry, "options", None) or [entry]:  # groups, or plain
                if len(found) < MAX_OPTIONS:
                    found.append(ModelOption(option.id, str(choice.value), str(choice.name)))
        if category == "model":
            session.current_model = str(option.current_value)
        else:
            session.current_mode = str(option.current_value)
    modes = getattr(response, "modes", None)
    if modes is not None and not session.modes:
        session.modes = [
            ModelOption("", str(m.id), str(m.name)) for m in modes.available_modes[:MAX_OPTIONS]
        ]
        session.current_mode = str(modes.current_mode_id)


async def choose_model(session: AgentSession, model: str) -> None:
    """Set the agent's model (`AGENT:MODEL`); AgentProblem naming those it offers."""
    if model and model != session.current_model:
        session.current_model = await _choose(session, "model", session.models, model)


async def choose_mode(session: AgentSession, mode: str) -> None:
    """Set the agent's mode (a chat setting); AgentProblem naming those it offers."""
    if mode and mode != session.current_mode:
        session.current_mode = await _choose(session, "mode", session.modes, mode)


async def _choose(session: AgentSession, what: str, offered: list[ModelOption], wanted: str) -> str:
    found = next((m for m in offered if wanted in (m.value, m.name)), None)
    if found is None:
        names = ", ".join(m.value for m in offered) or "none through its settings"
        raise AgentProblem(
            f"The agent {session.agent.id} offers no {what} {wanted!r}; it offers: {names}."
        )
    connection = session.process.connection
    assert connection is not None
    try:
        asked: Any
        if found.config_id:
            asked = connection.set_config_option(
                config_id=found.config_id, session_id=session.session_id, value=found.value
            )
        else:  # a mode of the session's `modes`
            asked = connection.set_session_mode(mode_id=found.value, session_id=session.session_id)
        await asyncio.wait_for(asked, START_SECONDS)
    except (RequestError, ValidationError, TimeoutError) as exc:
        raise AgentProblem(
            f"The agent {session.agent.id} did not switch to the {what} {wanted!r}: {exc}"
        ) from None
    return found.value


def _mcp_entry(server: McpServerConfig) -> McpServerStdio:
    """One of the person's MCP servers as `session/new` gives it to the agent."""
    return McpServerStdio(
        name=server.name,
        command=server.command,
        args=list(server.args),
        env=[EnvVariable(name=k, value=v) for k, v in server.env.items()],
    )


DOOR_NAME = "sightline"
# What the door must find to be the same Sightline: its config and its data (the chat).
_DOOR_ENV = ("SIGHTLINE_CONFIG", "SIGHTLINE_DATA_DIR")


def door_command() -> list[str]:
    """This Sightline as a command: the frozen program itself, else this Python with `-m app`."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "app"]


def _door_entry(
    agent: ProviderConfig, door: DoorOffer, line: DoorLine | None, *, sees: bool
) -> McpServerStdio:
    """The door as `session/new` offers it. With a line it only relays each call to this
    turn, which runs it; with none (no Unix sockets) it runs its calls itself as its flags
    say: pictures as images only to an agent whose `promptCapabilities.image` says it
    takes them, calls only when the run allows them."""
    command, *first = door_command()
    env = [EnvVariable(name=k, value=os.environ[k]) for k in _DOOR_ENV if os.environ.get(k)]
    if line is not None:
        env.append(EnvVariable(name=TOKEN_ENV, value=line.token))
        return McpServerStdio(
            name=DOOR_NAME,
            command=command,
            args=[*first, "mcp-serve", "--ask", line.address],
            env=env,
        )
    args = [*first, "mcp-serve", "--sees" if sees else "--blind", "--agent", agent.id]
    if agent.is_local:
        args.append("--local")
    if door.allowed:
        args.append("--allow-tools")
    return McpServerStdio(name=DOOR_NAME, command=command, args=args, env=env)


def _sign_in(agent: ProviderConfig, info: InitializeResponse) -> AgentNeedsSignIn:
    """Which command signs in: a terminal method's own, else the agent's methods by name."""
    methods = list(info.auth_methods or ())
    for method in methods:
        if getattr(method, "type", "") == "terminal":
            command = " ".join([agent.command, *(getattr(method, "args", None) or [])])
            return AgentNeedsSignIn(
                f"The agent {agent.id} asks you to sign in first: run `{command}` in a "
                "terminal, then send your message again."
            )
    names = "; ".join(
        f"{m.name}" + (f" ({m.description})" if getattr(m, "description", None) else "")
        for m in methods
    )
    return AgentNeedsSignIn(
        f"The agent {agent.id} asks you to sign in first ({names or 'it names no way'}). "
        f"Sign in with its own command in a terminal (`{agent.command} --help` names it; "
        "for OpenCode, `opencode auth login`), then send your message again."
    )


def _start_problem(
    agent: ProviderConfig, process: AgentProcess, exc: BaseException, timeout: float
) -> AgentProblem:
    """Why the agent could not be started, in words."""
    log.info("the agent %s did not start: %r", agent.id, exc)
    if process.malformed:
        return AgentStopped(
            f"The agent {agent.id} sent {process.malformed} as it started, which Sightline "
            "can't read; check its command and args."
        )
    if isinstance(exc, TimeoutError):
        return AgentStopped(
            f"The agent {agent.id} did not answer within {timeout:g} s of starting; check its "
            "command and args."
        )
    status = process.exit_status()
    if status is not None:
        return AgentStopped(
            f"The agent {agent.id} ended as it started (exit status {status}); check its "
            "command and args (its own log is in Sightline's)."
        )
    return AgentStopped(f"The agent {agent.id} could not be started: {exc}")
