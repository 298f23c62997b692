"""Sightline's overhead on an agent turn, against a bare ACP client driving the same agent.

The agent is the tests' fake ACP agent (tests/servers/acp_agent.py), started as the
tests start it (this Python, `-m`, the repository on PYTHONPATH), with a few hundred
answer chunks streamed before its own: it runs as `python -m benchmarks.bench_agent
--agent`, which is that agent with CHUNKS words first. Two answers: words only, and
words around a tool call whose result carries a picture (the agent's `tool`).

The bare client uses only the SDK (`acp.spawn_agent_process`): initialize,
session/new, session/prompt, the chunks' words gathered. Sightline is `AcpEngine`
with a real SQLite store in a temporary folder, every event consumed. Warm: one
running agent each, WARM turns taken in turn; cold: the agent started, its session
opened and the first turn answered (Sightline: a new engine and a new chat in the
open store), COLD times each, alternately.

Sightline tells the SDK it has no tracer (app/turn/acp/process.py): it opens no
OpenTelemetry span a message. The bare client shares the SDK in this process, so it
runs without them too, and the ratio stays Sightline's own cost, not the spans'.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from contextlib import AsyncExitStack, aclosing
from pathlib import Path
from typing import Any, cast

from acp import (
    PROTOCOL_VERSION,
    Client,
    PromptResponse,
    run_agent,
    spawn_agent_process,
    text_block,
    update_agent_message_text,
)
from acp.schema import ClientCapabilities, FileSystemCapabilities, Implementation

from app.store import Store
from app.turn.acp.engine import AcpEngine
from app.turn.acp.process import skip_untraced_spans
from app.turn.events import ItemAdded, TextAdded, TurnEnded
from app.turn.turn_input import TurnInput
from benchmarks.common import ROOT, Paired, Row
from routing.models import ProviderConfig
from routing.transcript import Message

CHUNKS = 400  # answer chunks of one turn, before the fake agent's own two
WARM = 30  # measured warm turns each
COLD = 8  # measured cold starts each (after one unmeasured)
PROMPT = "Tell me about the picture."
GOAL = "≤ 1.15× bare ACP client, every run"
CHUNKS_ENV = "BENCH_ACP_CHUNKS"


def _agent_env(behaviours: str) -> dict[str, str]:
    """The fake agent's own variables, as the tests give them."""
    return {"FAKE_ACP": behaviours, CHUNKS_ENV: str(CHUNKS), "PYTHONPATH": str(ROOT)}


def _agent_args() -> tuple[str, ...]:
    return ("-m", "benchmarks.bench_agent", "--agent")


def _expected() -> str:
    """The words of one answer (a tool's result is not among them)."""
    words = "".join(f"word{n} " for n in range(CHUNKS))
    return f"{words}Part one. You said: {PROMPT} (0 pictures)"


class _BareClient:
    """The least an ACP client does: keep the words, note the tool calls."""

    def __init__(self) -> None:
        self.words: list[str] = []
        self.tool_updates = 0

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        kind = getattr(update, "session_update", "")
        if kind == "agent_message_chunk":
            self.words.append(getattr(update.content, "text", ""))
        elif kind in ("tool_call", "tool_call_update"):
            self.tool_updates += 1

    async def request_permission(self, *args: Any, **kwargs: Any) -> Any:
        # The benchmark's agent never asks; a bare client that offers nothing refuses.
        from acp import RequestError

        raise RequestError.method_not_found("session/request_permission")

    def on_connect(self, conn: Any) -> None:
        pass


class _Bare:
    """One bare client's running agent and session."""

    def __init__(self, behaviours: str, cwd: Path) -> None:
        self.behaviours = behaviours
        self.cwd = cwd
        self.client = _BareClient()
        self._stack = AsyncExitStack()
        self.conn: Any = None
        self.session_id = ""

    async def start(self) -> None:
        env = {**os.environ, **_agent_env(self.behaviours)}
        self.conn, _process = await self._stack.enter_async_context(
            spawn_agent_process(
                cast(Client, self.client), sys.executable, *_agent_args(), env=env, cwd=self.cwd
            )
        )
        await self.conn.initialize(
            protocol_version=PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=False, write_text_file=False),
                terminal=False,
            ),
            client_info=Implementation(name="bare", version="1"),
        )
        created = await self.conn.new_session(cwd=str(self.cwd), mcp_servers=[])
        self.session_id = created.session_id

    async def turn(self) -> None:
        self.client.words, self.client.tool_updates = [], 0
        await self.conn.prompt(session_id=self.session_id, prompt=[text_block(PROMPT)])
        text = "".join(self.client.words)
        if text != _expected():
            raise RuntimeError(f"the bare client got {text[-200:]!r}")
        if "tool" in self.behaviours and self.client.tool_updates != 2:
            raise RuntimeError(f"the bare client saw {self.client.tool_updates} tool updates")

    async def close(self) -> None:
        await self._stack.aclose()


class _Sightline:
    """One AcpEngine with its chat, on the open store."""

    def __init__(self, store: Store, behaviours: str, cwd: Path) -> None:
        agent = ProviderConfig(
            "fake",
            "acp",
            "",
            command=sys.executable,
            args=_agent_args(),
            env=tuple(_agent_env(behaviours).items()),
        )
        self.behaviours = behaviours
        self.store = store
        self.engine = AcpEngine(store, [agent], cwd=cwd)
        self.chat = store.conversations.create()

    async def turn(self) -> None:
        words: list[str] = []
        tool_rows = 0
        error: object = None
        async with aclosing(
            self.engine.run(TurnInput(self.chat, PROMPT, requested_model="fake"))
        ) as run:
            async for event in run:
                if isinstance(event, TextAdded):
                    words.append(event.text)
                elif isinstance(event, ItemAdded):
                    item = event.item.item
                    if isinstance(item, Message) and item.role == "tool":
                        tool_rows += 1
                elif isinstance(event, TurnEnded):
                    error = event.error
        text = "".join(words)
        if error is not None or text != _expected():
            raise RuntimeError(f"Sightline's turn failed: {error!r}; got {text[-200:]!r}")
        if "tool" in self.behaviours and tool_rows != 1:
            raise RuntimeError(f"Sightline stored {tool_rows} tool results")

    async def close(self) -> None:
        await self.engine.aclose()


async def _timed(action: Any) -> float:
    started = time.perf_counter()
    await action
    return time.perf_counter() - started


async def warm(store: Store, behaviours: str, cwd: Path) -> Paired:
    """WARM turns each on a running agent, alternately (after one unmeasured each)."""
    bare, sightline = _Bare(behaviours, cwd), _Sightline(store, behaviours, cwd)
    times = Paired([], [])
    try:
        await bare.start()
        await sightline.turn()  # starts its agent
        await bare.turn()
        for _ in range(WARM):
            times.floor.append(await _timed(bare.turn()))
            times.ours.append(await _timed(sightline.turn()))
    finally:
        await bare.close()
        await sightline.close()
    return times


async def cold(store: Store, behaviours: str, cwd: Path) -> Paired:
    """COLD starts and first turns each, alternately (after one unmeasured each)."""
    times = Paired([], [])
    for n in range(COLD + 1):
        bare = _Bare(behaviours, cwd)
        started = time.perf_counter()
        try:
            await bare.start()
            await bare.turn()
            took = time.perf_counter() - started
        finally:
            await bare.close()
        if n:
            times.floor.append(took)
        started = time.perf_counter()
        sightline = _Sightline(store, behaviours, cwd)
        try:
            await sightline.turn()
            took = time.perf_counter() - started
        finally:
            await sightline.close()
        if n:
            times.ours.append(took)
    return times


async def measure(folder: Path) -> dict[tuple[str, str], Paired]:
    """Every figure: (answer, warm or cold) -> times."""
    found: dict[tuple[str, str], Paired] = {}
    skip_untraced_spans()  # for both clients, before either starts (the module's docstring)
    with Store.open(folder / "data") as store:
        for answer, behaviours in (("words", ""), ("tool + picture", "tool")):
            found[answer, "warm"] = await warm(store, behaviours, folder)
            found[answer, "cold"] = await cold(store, behaviours, folder)
    return found


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.1f} ms (min {min(values) * 1000:.1f})"


def run() -> list[Row]:
    """Measure and return the rows."""
    with tempfile.TemporaryDirectory(prefix="sightline-bench-agent-") as folder:
        found = asyncio.run(measure(Path(folder)))
    rows = []
    for (answer, how), times in found.items():
        mine = statistics.median(times.ours)
        what = "per turn, agent running" if how == "warm" else "start + first turn"
        count = WARM if how == "warm" else COLD
        rows.append(
            Row(
                f"agent turn ({answer}, {CHUNKS + 2} chunks), {what}: Sightline",
                mine * 1000,
                "ms",
                GOAL,
                f"Sightline {_ms(times.ours)}; bare ACP client {_ms(times.floor)}; "
                f"{times.ratios()}; {count} runs each",
            )
        )
    return rows


def _serve_agent() -> None:
    """Run the tests' fake agent with CHUNKS answer chunks before its own."""
    from tests.servers.acp_agent import FakeAgent

    chunks = int(os.environ.get(CHUNKS_ENV, "0"))

    class Chatty(FakeAgent):
        async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
            for n in range(chunks):
                await self.conn.session_update(session_id, update_agent_message_text(f"word{n} "))
            return await super().prompt(session_id, prompt, **kwargs)

    asyncio.run(run_agent(Chatty()))


if __name__ == "__main__":
    if sys.argv[1:] == ["--agent"]:
        _serve_agent()
    else:
        from benchmarks.common import table

        print(table(run()))
