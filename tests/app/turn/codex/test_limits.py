"""A Codex turn within its bounds (app/turn/limits.py): the fake app server as a process,
flooding or trickling.

Its words, reasoning and commands' output together reach the cap: what fits is kept,
`turn/interrupt` is sent, the turn ends saying so. A one-character delta every moment
never lets it go idle: the turn's overall limit ends it the same way.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest

from app.store import Store
from routing.models import ProviderConfig
from routing.transcript import MessageStatus
from tests.app.turn.codex.test_engine import EngineFor, engine_for, fake
from tests.app.turn.engine_helpers import cut_at_the_limit, flooded, run_turn, with_env

__all__ = ["engine_for"]  # the fixture, shared with the engine's tests


def trickling(tmp_path: Path, every: str = "0.05") -> ProviderConfig:
    return with_env(fake(tmp_path, "trickle"), FAKE_CODEX_EVERY=every)


async def test_a_flood_is_cut_at_the_cap_and_the_turn_interrupted(
    store: Store, tmp_path: Path, engine_for: EngineFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = engine_for(fake(tmp_path, "flood"))
    chat, _events = await flooded(engine, "codex", "Codex (codex)", 30_000, monkeypatch)
    _user, answer = store.messages(chat)
    assert 9_000 <= len(answer.text) <= 10_000 and set(answer.text) == {"x"}
    assert answer.status == MessageStatus.STOPPED
    thoughts = answer.carried("acp_thought", "codex")[0].data["text"]
    assert len(answer.text) + len(thoughts) <= 30_000
    # Interrupted, not dropped: the same Codex answers the next turn.
    assert engine._sessions[chat].process.running


async def test_a_trickle_past_the_turn_s_limit_is_interrupted(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    engine = engine_for(trickling(tmp_path), turn_timeout=1.0)
    chat = store.conversations.create()
    started = time.monotonic()
    events = await run_turn(engine, chat, "go", "codex")
    assert time.monotonic() - started < 8
    cut_at_the_limit(events, "Codex (codex)", "1 second")
    _user, answer = store.messages(chat)
    assert answer.text.startswith("...") and answer.status == MessageStatus.STOPPED
    assert engine._sessions[chat].process.running


async def test_codex_s_own_turn_seconds_is_its_limit(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    engine = engine_for(replace(trickling(tmp_path), turn_seconds=0.5))
    events = await run_turn(engine, store.conversations.create(), "go", "codex")
    cut_at_the_limit(events, "Codex (codex)", "0.5 seconds")
