"""`sightline ask` and `sightline models` with Codex (kind "codex"), as processes: the fake
app server (tests/servers/codex_app_server.py) checks every message against the schema
of the pinned Codex."""

from __future__ import annotations

import json
from pathlib import Path

from tests.app.cli.helpers import asked_with_a_picture, refused_then_allowed, sightline
from tests.conftest import SightlineHome
from tests.servers.acp_config import with_fake_codex


def test_ask_codex_streams_its_answer_and_takes_a_picture(
    home: SightlineHome, tmp_path: Path
) -> None:
    with_fake_codex(home, tmp_path / "state.json", "reason", model_provider="loopback")
    lines = asked_with_a_picture(home, tmp_path, "codex:gpt-5-mini", "look")
    words = "".join(line["text"] for line in lines if line["type"] == "text")
    assert words == "You said: look (1 images: data:image/png;base64)"
    assert [line["text"] for line in lines if line["type"] == "thought"] == ["Thinking it over"]
    # Its model runs off this computer (no local model provider): the picture's crossing is told.
    said = [line["text"] for line in lines if line["type"] == "notice"]
    assert any("went to Codex (codex)" in text for text in said)


def test_without_allow_tools_codex_commands_are_declined_and_named(
    home: SightlineHome, tmp_path: Path
) -> None:
    with_fake_codex(home, tmp_path / "state.json", "command", model_provider="loopback")
    done, allowed = refused_then_allowed(home, "codex", "run ls")
    assert "Approval: decline." in done.stdout
    # The headless line names the command, as Codex parsed it, in one line.
    named = "Codex asked to run `touch made.txt && echo made`, which was not allowed."
    assert named in done.stderr
    assert "--allow-tools" in done.stderr
    assert "Approval: accept." in allowed.stdout, allowed.stderr


def test_more_permissions_are_granted_for_the_run_only_with_allow_tools(
    home: SightlineHome, tmp_path: Path
) -> None:
    with_fake_codex(home, tmp_path / "state.json", "permissions", model_provider="loopback")
    done, allowed = refused_then_allowed(home, "codex", "fetch it")
    assert "Permissions: none; scope turn." in done.stdout
    assert "Codex asked for more permissions (network, write), which were not allowed." in (
        done.stderr
    )
    assert "Permissions: network, write; scope turn." in allowed.stdout, allowed.stderr
    assert "Codex was given more permissions (network, write) for this turn." in allowed.stderr


def test_codex_signed_out_says_how_to_sign_in(home: SightlineHome, tmp_path: Path) -> None:
    with_fake_codex(home, tmp_path / "state.json", "signed-out")
    done = sightline(home, "ask", "--model", "codex", "hello")
    assert done.returncode == 1
    assert "codex login" in done.stderr and "Traceback" not in done.stderr


def test_models_lists_codex_as_an_agent(home: SightlineHome, tmp_path: Path) -> None:
    with_fake_codex(home, tmp_path / "state.json", "", model_provider="ollama")
    done = sightline(home, "models", "--json")
    assert done.returncode == 0, done.stderr
    [row] = [r for r in json.loads(done.stdout) if r["provider"] == "codex"]
    assert (row["agent"], row["local"], row["sees"]) == (True, True, None)
