"""An agent's command looked for, never run, and its environment shown masked."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from app.agent_commands import command_status, masked_env
from app.agent_servers import read_agent_servers

ZED = {"agent_servers": {"My Agent": {"command": "opencode", "env": {"K": "secret-v"}}}}


def _program(path: Path, *, runnable: bool = True) -> Path:
    path.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    path.chmod(stat.S_IRWXU if runnable else stat.S_IRUSR | stat.S_IWUSR)
    return path


@pytest.mark.skipif(os.name != "posix", reason="file modes")
def test_the_command_is_looked_for_never_run(tmp_path: Path) -> None:
    runs = tmp_path / "ran"
    program = tmp_path / "agent"
    program.write_text(f"#!/bin/sh\ntouch {runs}\n", encoding="utf-8")
    program.chmod(stat.S_IRWXU)
    plain = _program(tmp_path / "plain", runnable=False)
    environ = {"PATH": str(tmp_path)}
    assert command_status("agent", (), environ) == (True, f"found on PATH: {program}")
    assert command_status(str(program), (), {"PATH": ""}) == (True, f"found: {program}")
    assert command_status("missing-agent", (), environ)[0] is False
    assert "not found on PATH" in command_status("missing-agent", (), environ)[1]
    assert "not one that can be run" in command_status(str(plain), (), environ)[1]
    assert "is a folder" in command_status(str(tmp_path), (), environ)[1]
    assert "no file" in command_status(str(tmp_path / "nope"), (), environ)[1]
    assert "relative path" in command_status("./agent", (), environ)[1]
    # The agent's own PATH comes first, as it is started with it.
    assert command_status("agent", (("PATH", str(tmp_path)),), {"PATH": ""})[0] is True
    assert not runs.exists()


def test_env_is_shown_masked() -> None:
    assert masked_env((("TOKEN", "sk-secret"), ("MODE", "1"))) == "TOKEN=•••, MODE=•••"
    paste = read_agent_servers(json.dumps(ZED))
    assert "secret-v" not in paste.words({"PATH": ""})
    assert "with 1 environment variable" in paste.words({"PATH": ""})
