"""Starting Codex when its answers aren't in the schema's shape (a newer or broken app
server): said in words, never a traceback. The program here answers each request with
what the test names, unchecked (the fake app server checks every answer it sends)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from app.turn.agent_problems import AgentStopped
from app.turn.codex.session import start_codex
from routing.models import ProviderConfig

# Reads JSON lines; answers each request with ANSWERS[method] (null when not named).
ANSWERING = """
import json, os, sys
answers = json.loads(os.environ["ANSWERS"])
for line in sys.stdin:
    message = json.loads(line)
    if "id" in message and "method" in message:
        reply = {"id": message["id"], "result": answers.get(message["method"])}
        sys.stdout.write(json.dumps(reply) + "\\n")
        sys.stdout.flush()
"""


def answering(answers: dict[str, Any], model_provider: str = "") -> ProviderConfig:
    return ProviderConfig(
        "codex",
        "codex",
        "",
        command=sys.executable,
        args=("-c", ANSWERING, "app-server"),
        env=(("ANSWERS", json.dumps(answers)),),
        model_provider=model_provider,
    )


@pytest.mark.parametrize(
    "thread",
    [None, "a thread", {"thread": "t-1"}, {"thread": {"id": 7}}, {"thread": {"id": ""}}, []],
)
async def test_a_thread_answer_without_an_id_is_told(tmp_path: Path, thread: Any) -> None:
    provider = answering({"initialize": {}, "thread/start": thread}, model_provider="local")
    with pytest.raises(AgentStopped) as stopped:
        await start_codex(provider, tmp_path, "", "", ())
    assert "could not start a thread" in stopped.value.message
    assert "its answer names no thread" in stopped.value.message


@pytest.mark.parametrize("odd", [None, [], "signed in", {"data": 5}, {"data": [1, {"x": 2}]}])
async def test_odd_account_and_model_answers_are_taken_as_nothing(tmp_path: Path, odd: Any) -> None:
    answers = {
        "initialize": {},
        "account/read": odd,
        "model/list": odd,
        "thread/start": {"thread": {"id": "t-1"}},
    }
    session = await start_codex(answering(answers), tmp_path, "", "", ())
    try:
        assert (session.thread_id, session.models) == ("t-1", ())
    finally:
        await session.process.close()


async def test_a_resume_without_a_thread_starts_a_new_one(tmp_path: Path) -> None:
    answers = {"initialize": {}, "thread/resume": {}, "thread/start": {"thread": {"id": "t-2"}}}
    provider = answering(answers, model_provider="local")
    session = await start_codex(provider, tmp_path, "t-old", "", ())
    try:
        assert session.thread_id == "t-2" and not session.remembered
    finally:
        await session.process.close()
