"""`sightline ask` and `sightline models` with an agent, as processes (app/cli/ask.py)."""

from __future__ import annotations

import json
from pathlib import Path

from app.store import Store
from app.turn.agent_folder import FOLDER
from routing.transcript import CarriedPart, Message, TextPart
from tests.app.cli.helpers import asked_with_a_picture, refused_then_allowed, sightline
from tests.conftest import SightlineHome
from tests.servers.acp_agent import read_log
from tests.servers.acp_config import with_agent

ROOT = Path(__file__).resolve().parents[3]


def test_ask_an_agent_streams_its_answer(home: SightlineHome, tmp_path: Path) -> None:
    with_agent(home, tmp_path, "think")
    done = sightline(home, "ask", "--model", "fake", "hello")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Part one. You said: hello (0 pictures)\n"
    assert read_log(tmp_path)[1]["new_session"] == str(ROOT)  # ask's working folder


def new_sessions(log: Path) -> list[str]:
    """The folders the fake agent's sessions were started in, in order."""
    return [entry["new_session"] for entry in read_log(log) if "new_session" in entry]


def test_a_chat_ask_started_keeps_its_folder_for_the_next_ask(
    home: SightlineHome, tmp_path: Path
) -> None:
    log, project = tmp_path / "log", tmp_path / "project"
    log.mkdir()
    project.mkdir()
    with_agent(home, log, "")
    first = sightline(home, "ask", "--json", "--model", "fake", "hello", cwd=project)
    assert first.returncode == 0, first.stderr
    chat = json.loads(first.stdout.splitlines()[-1])["conversation"]
    # Asked again from elsewhere, the chat's agent works where the chat began.
    again = sightline(home, "ask", "--conversation", chat, "--model", "fake", "and now?")
    assert again.returncode == 0, again.stderr
    assert new_sessions(log) == [str(project), str(project)]


def test_ask_in_a_chat_works_in_the_folder_the_window_kept(
    home: SightlineHome, tmp_path: Path
) -> None:
    with_agent(home, tmp_path, "")
    project = tmp_path / "project"
    project.mkdir()
    with Store.open(home.data) as store:  # as the window keeps the folder the person chose
        chat = store.conversations.create(model="fake")
        kept = CarriedPart(FOLDER, "fake", {"cwd": str(project)})
        store.add_message(chat, Message("user", (TextPart("hello"), kept)))
    done = sightline(home, "ask", "--conversation", chat, "--model", "fake", "go on")
    assert done.returncode == 0, done.stderr
    assert new_sessions(tmp_path) == [str(project)]
    with Store.open(home.data) as store:  # kept once: the chat's later messages carry none
        carried = [
            p
            for m in store.messages(chat)
            for p in m.parts
            if isinstance(p, CarriedPart) and p.shape == FOLDER
        ]
    assert [p.data["cwd"] for p in carried] == [str(project)]


def test_ask_json_has_thoughts_plans_tools_and_pictures(
    home: SightlineHome, tmp_path: Path
) -> None:
    with_agent(home, tmp_path, "sees,think,plan,tool,models")
    lines = asked_with_a_picture(home, tmp_path, "fake:large", "What?")
    types = [line["type"] for line in lines]
    assert {"thought", "plan", "tool_call", "tool_result", "text"} <= set(types)
    assert types[-1] == "done"
    [result] = [line for line in lines if line["type"] == "tool_result"]
    assert result["pictures"] == 1 and result["text"] == "Here it is."
    assert read_log(tmp_path)[-1] == {
        "prompt": "What?",
        "pictures": ["image/png"],
        "model": "large",
    }


def test_without_allow_tools_a_permission_is_rejected_and_named(
    home: SightlineHome, tmp_path: Path
) -> None:
    with_agent(home, tmp_path, "permission")
    done, allowed = refused_then_allowed(home, "fake", "go")
    assert "[permission: no]" in done.stdout
    assert "asked to Read notes.txt, which was not allowed" in done.stderr
    assert "--allow-tools" in done.stderr
    assert "[permission: yes]" in allowed.stdout


def test_without_allow_tools_a_command_is_rejected_and_named_in_one_line(
    home: SightlineHome, tmp_path: Path
) -> None:
    with_agent(home, tmp_path, "exec-permission")
    done = sightline(home, "ask", "--model", "fake", "clean up")
    assert done.returncode == 0, done.stderr
    assert "[permission: no]" in done.stdout
    # Its two-line command in one line: the first, and that more was left out.
    assert "The agent fake asked to run `rm -rf build …`, which was not allowed." in done.stderr
    assert "echo cleaned" not in done.stderr


def test_a_crashing_agent_is_one_clear_line(home: SightlineHome, tmp_path: Path) -> None:
    with_agent(home, tmp_path, "crash")
    done = sightline(home, "ask", "--model", "fake", "go")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().endswith("Your next message starts it again.")
    assert "exit status 3" in done.stderr


def test_a_name_neither_a_provider_nor_an_agent_names_both(
    home: SightlineHome, tmp_path: Path
) -> None:
    with_agent(home, tmp_path, "")
    done = sightline(home, "ask", "--model", "fkae", "go")
    assert done.returncode != 0
    assert "no provider 'fkae'" in done.stderr and "agents: fake;" in done.stderr
    assert "Traceback" not in done.stderr


def test_models_lists_agents_with_their_sight(home: SightlineHome, tmp_path: Path) -> None:
    with_agent(home, tmp_path, "sees")
    done = sightline(home, "models", "--json")
    assert done.returncode == 0, done.stderr
    [agent] = [row for row in json.loads(done.stdout) if row.get("agent")]
    assert (agent["provider"], agent["sees"], agent["local"]) == ("fake", True, False)
