"""One running Codex for one chat: started, initialized, with its thread.

The handshake is `initialize` (with the experimental API, which dynamic tools need)
and `initialized`. With no `model_provider`, Codex's own sign-in is needed, and a
Codex that isn't signed in starts threads anyway and retries the network for ever,
so `account/read` is asked first and a missing sign-in said plainly. A chat that had
a thread resumes it (`thread/resume`); otherwise a thread starts that asks about every
command (`approvalPolicy: "untrusted"`) in the read-only sandbox, with Sightline's
tools as dynamic tools. Each request is bounded (`START_SECONDS`).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.tools.base import Tool
from app.turn.agent_problems import AgentNeedsSignIn, AgentNotInstalled, AgentProblem, AgentStopped
from app.turn.codex.process import CodexProcess, CodexRefused
from routing.models import ProviderConfig

log = logging.getLogger(__name__)

START_SECONDS = 30.0  # for each handshake request
MAX_MODELS = 200  # of one Codex's own list kept for the picker
SIGN_IN = (
    "Codex is not signed in: run `codex login` in a terminal (or set its API key there), "
    "or give it a local model provider, then send your message again."
)


@dataclass
class CodexSession:
    """One chat's running Codex: its process and thread."""

    provider: ProviderConfig
    process: CodexProcess
    thread_id: str = ""
    remembered: bool = True  # False: a new thread where earlier turns were
    models: tuple[str, ...] = ()  # Codex's own list (`model/list`), for its own sign-in

    @property
    def agent(self) -> ProviderConfig:
        """Codex's provider, as the agents' base names it."""
        return self.provider

    @property
    def session_id(self) -> str:
        """The thread its turns go to."""
        return self.thread_id

    @property
    def running(self) -> bool:
        """Whether the app server still runs."""
        return self.process.running

    async def close(self) -> None:
        """End the app server."""
        await self.process.close()


async def start_codex(
    provider: ProviderConfig, cwd: Path, earlier_thread: str, model: str, tools: Sequence[Tool]
) -> CodexSession:
    """Start Codex, shake hands, and resume `earlier_thread` or start a thread in `cwd`
    (`earlier_thread` " ": the chat has earlier turns but no thread of Codex's)."""
    process = CodexProcess(f"codex {provider.id}")
    args = provider.args if "app-server" in provider.args else (*provider.args, "app-server")
    try:
        await process.start(
            provider.command or "codex", args, {**os.environ, **dict(provider.env)}, cwd
        )
        session = CodexSession(provider, process)
        await _handshake(session)
        await _thread(session, cwd, earlier_thread, model, tools)
    except (FileNotFoundError, PermissionError) as exc:
        await process.close()
        raise AgentNotInstalled(
            f"Codex ({provider.id}) could not be started: {exc}. Install it "
            "(`npm install -g @openai/codex`) or set its command to the program's full path."
        ) from None
    except AgentProblem:
        await process.close()
        raise
    except (CodexRefused, ConnectionError, TimeoutError) as exc:
        await process.settle()
        status = process.exit_status()
        await process.close()
        how = f" (exit status {status})" if status is not None else ""
        raise AgentStopped(
            f"Codex ({provider.id}) could not start a thread{how}: {exc}. "
            "Your next message tries again."
        ) from None
    return session


async def _handshake(session: CodexSession) -> None:
    from app.version import installed_version

    process, provider = session.process, session.provider
    info = {"name": "sightline", "title": "Sightline", "version": installed_version()}
    await process.request(
        "initialize", {"clientInfo": info, "capabilities": {"experimentalApi": True}}, START_SECONDS
    )
    await process.notify("initialized")
    if provider.model_provider:
        return  # a model provider of Codex's config: no sign-in, and Codex can't list it
    account = await process.request("account/read", {}, START_SECONDS)
    if not isinstance(account, dict):
        account = {}
    if account.get("requiresOpenaiAuth") and account.get("account") is None:
        raise AgentNeedsSignIn(SIGN_IN)
    session.models = await _own_models(process)


async def _own_models(process: CodexProcess) -> tuple[str, ...]:
    """Codex's own models (`model/list`), the hidden ones left out."""
    try:
        listed = await process.request("model/list", {}, START_SECONDS)
    except CodexRefused as exc:
        log.info("Codex did not list its models: %s", exc)
        return ()
    data = listed.get("data") if isinstance(listed, dict) else None
    entries = data if isinstance(data, list) else []
    names = [
        str(e["model"])
        for e in entries
        if isinstance(e, dict) and isinstance(e.get("model"), str) and not e.get("hidden")
    ]
    return tuple(names[:MAX_MODELS])


async def _thread(
    session: CodexSession, cwd: Path, earlier: str, model: str, tools: Sequence[Tool]
) -> None:
    process, provider = session.process, session.provider
    if earlier.strip():
        try:
            resumed = await process.request("thread/resume", {"threadId": earlier}, START_SECONDS)
            session.thread_id = _thread_id("thread/resume", resumed)
            return
        except CodexRefused as exc:
            log.info("Codex could not resume thread %s: %s", earlier, exc)
    session.remembered = not earlier
    params: dict[str, Any] = {
        "cwd": str(cwd),
        "approvalPolicy": "untrusted",
        "sandbox": "read-only",
    }
    if model:
        params["model"] = model
    if provider.model_provider:
        params["modelProvider"] = provider.model_provider
    if tools:
        params["dynamicTools"] = [
            {
                "type": "function",
                "name": t.spec.name,
                "description": t.spec.description,
                "inputSchema": dict(t.spec.parameters),
            }
            for t in tools
        ]
    started = await process.request("thread/start", params, START_SECONDS)
    session.thread_id = _thread_id("thread/start", started)


def _thread_id(method: str, answer: Any) -> str:
    """The thread's id in Codex's answer; CodexRefused when the answer has none."""
    thread = answer.get("thread") if isinstance(answer, dict) else None
    found = thread.get("id") if isinstance(thread, dict) else None
    if not isinstance(found, str) or not found:
        raise CodexRefused(method, 0, "its answer names no thread")
    return found
