"""The agent's output as the SDK's message transport: each line parsed once, the first
unreadable one ending the stream with the reason kept (the reading itself:
tests/app/turn/test_child_lines.py); the SDK's spans skipped when nobody traces."""

from __future__ import annotations

import asyncio
from contextlib import nullcontext
from pathlib import Path
from typing import Any, cast

import pytest
from acp import telemetry
from opentelemetry import trace

from app.turn.acp.process import AgentProcess, CheckedLines, skip_untraced_spans
from tests.app.turn.acp.helpers import EngineFor, fake
from tests.app.turn.engine_helpers import clean_turn


def lines_of(data: bytes) -> tuple[AgentProcess, CheckedLines]:
    process = AgentProcess("fake")
    reader = asyncio.StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    return process, CheckedLines(process, reader, cast(Any, None))


async def received(lines: CheckedLines) -> list[dict[str, Any]]:
    got = []
    while (message := await lines.receive()) is not None:
        got.append(message)
    return got


async def test_messages_come_parsed_and_heard() -> None:
    process, lines = lines_of(b'{"id": 1, "result": {}}\n{"method": "session/update"}\n')
    assert await received(lines) == [{"id": 1, "result": {}}, {"method": "session/update"}]
    assert process.malformed == "" and process.last_heard > 0


async def test_the_first_unreadable_line_ends_the_stream() -> None:
    process, lines = lines_of(b'{"method": "a"}\nnot json\n{"method": "b"}\n')
    assert await received(lines) == [{"method": "a"}]  # what came before it is taken
    assert process.malformed == "a line that is not JSON"
    assert not process.running
    assert await lines.receive() is None  # and nothing after it


@pytest.fixture
def sdk_tracer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK's tracer as it is on import, whatever an earlier test's turn did to it."""
    monkeypatch.setattr(telemetry, "TRACER", trace.get_tracer(telemetry.__name__))


@pytest.mark.usefixtures("sdk_tracer")
def test_the_sdk_opens_no_span_a_message_when_nobody_traces() -> None:
    assert not isinstance(telemetry.span_context("acp.notification"), nullcontext)
    assert skip_untraced_spans()
    assert isinstance(telemetry.span_context("acp.notification"), nullcontext)
    assert not skip_untraced_spans()  # once is enough


@pytest.mark.usefixtures("sdk_tracer")
def test_a_tracer_set_up_by_whoever_runs_sightline_keeps_its_spans(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    set_up = trace.NoOpTracerProvider()  # any provider but the API's stand-in
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: set_up)
    assert not skip_untraced_spans()
    assert not isinstance(telemetry.span_context("acp.notification"), nullcontext)


@pytest.mark.usefixtures("sdk_tracer")
async def test_starting_an_agent_skips_the_spans(tmp_path: Path, engine_for: EngineFor) -> None:
    await clean_turn(engine_for, fake(tmp_path), "hello", "fake")
    assert telemetry.TRACER is None
