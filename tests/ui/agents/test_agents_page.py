"""Settings → Agents: Zed's agent_servers pasted, checked, added and saved to a real config file."""

from __future__ import annotations

import json
import stat
import tomllib
from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.config import agent_providers, load_config
from app.presenters.settings_model import ProviderList
from app.ui.agents.agents_page import AgentsPage
from routing.models import ProviderConfig
from tests.conftest import SightlineHome
from tests.ui.helpers import OpenWindow, open_settings
from tests.ui.settings.test_settings_dialog import save

SECRET = "sk-agent-token-0123456789"
OLLAMA = ProviderConfig("ollama", "ollama", "http://127.0.0.1:11434")
OLD = ProviderConfig("old", "acp", "", command="old-agent", args=("acp",), env=(("TOKEN", SECRET),))


def fake_agent(folder: Path) -> Path:
    """A program that would leave a mark if it ran (Check must never run it)."""
    program = folder / "my-agent"
    program.write_text(f"#!/bin/sh\ntouch {folder / 'ran'}\n", encoding="utf-8")
    program.chmod(stat.S_IRWXU)
    return program


def zed_json(command: str) -> str:
    """What a person copies from their Zed settings.json: comments, trailing commas and all."""
    return f"""{{
  // Zed: agents
  "agent_servers": {{
    "My Agent": {{
      "type": "custom",
      "command": {json.dumps(command)},
      "args": ["acp"],
      "env": {{"MY_TOKEN": "{SECRET}"}},
    }},
    "gemini": {{}},
  }},
}}"""


def cell(page: AgentsPage, row: int, column: int) -> str:
    item = page.table.item(row, column)
    assert item is not None
    return item.text()


# -- the list the page edits (no window) ----------------------------------------------------


def test_agents_are_kept_apart_from_the_providers_and_share_their_ids() -> None:
    providers = ProviderList([OLLAMA, OLD], {})
    assert [d.id for d in providers.drafts] == ["ollama"]  # not in the order routing tries
    assert [a.id for a in providers.agents] == ["old"] and providers.agents[0].saved
    assert providers.ids() == ["ollama", "old"]
    providers.drafts[0].id = "old"  # a provider may not take an agent's name
    assert providers.problems(0)["id"] == "Another provider has this name."
    providers.drafts[0].id = "ollama"
    index = providers.add("ollama")
    assert providers.drafts[index].id == "ollama-2"
    assert [c.id for c in providers.configs()] == ["ollama", "ollama-2", "old"]
    assert providers.configs()[-1].env == (("TOKEN", SECRET),)


def test_added_agents_get_free_ids_and_removed_ones_go(qtbot: QtBot) -> None:
    providers = ProviderList([OLLAMA, OLD], {})
    page = AgentsPage(providers, {"PATH": ""})
    qtbot.addWidget(page)
    page.paste_edit.setPlainText('{"old": {"command": "x"}, "ollama": {"command": "y"}}')
    page.add()
    assert [a.id for a in providers.agents] == ["old", "old-2", "ollama-2"]
    assert page.table.rowCount() == 3 and page.paste_edit.toPlainText() == ""
    assert page.result.text().startswith("Added 2 agents: old-2, ollama-2.")
    page.table.selectRow(0)
    qtbot.mouseClick(page.remove_button, Qt.MouseButton.LeftButton)
    assert [a.id for a in providers.agents] == ["old-2", "ollama-2"]
    assert "Removed old" in page.result.text()


def test_bad_json_says_where_and_puts_the_cursor_there(qtbot: QtBot) -> None:
    page = AgentsPage(ProviderList([], {}), {"PATH": ""})
    qtbot.addWidget(page)
    page.paste_edit.setPlainText('{\n  "agent_servers": {\n    "a": {"command": "x"\n    "b"')
    qtbot.mouseClick(page.check_button, Qt.MouseButton.LeftButton)
    assert page.result.text().startswith("pasted text, line 4, column 5: not valid JSON")
    cursor = page.paste_edit.textCursor()
    assert (cursor.blockNumber(), cursor.positionInBlock()) == (3, 4)
    assert page.pending  # Save would ask first: the person meant to add something
    page.add()
    assert page.providers.agents == [] and page.paste_edit.toPlainText() != ""


def test_the_environment_is_shown_masked(qtbot: QtBot) -> None:
    page = AgentsPage(ProviderList([OLD], {}), {"PATH": ""})
    qtbot.addWidget(page)
    assert cell(page, 0, 0) == "old" and cell(page, 0, 1) == "old-agent acp"
    assert cell(page, 0, 2) == "TOKEN=•••"
    texts = [cell(page, 0, c) for c in range(3)] + [page.result.text()]
    assert all(SECRET not in t for t in texts)


# -- the whole way: paste, check, add, save, load ---------------------------------------------


def test_paste_check_add_and_save_makes_an_agent_the_config_loads(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot, tmp_path: Path
) -> None:
    program = fake_agent(tmp_path)
    session = open_window()
    dialog = open_settings(qtbot, session)
    page = dialog.agents_page
    dialog.tabs.setCurrentWidget(page)
    assert page.empty_text.isVisible() and not page.table.isVisible()

    page.paste_edit.setPlainText(zed_json(str(program)))
    qtbot.mouseClick(page.check_button, Qt.MouseButton.LeftButton)
    words = page.result.text()
    assert words.startswith("Found 1 agent:")
    assert f"“My Agent” as my-agent: {program} acp, with 1 environment variable" in words
    assert f"found: {program}" in words
    assert "“gemini” is skipped: it has no command" in words
    assert SECRET not in words
    assert page.providers.agents == []  # Check adds nothing

    # Save with the paste not yet added asks first, on the Agents page.
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert dialog.isVisible() and "press Add agents" in dialog.message.text()

    qtbot.mouseClick(page.add_button, Qt.MouseButton.LeftButton)
    assert page.table.rowCount() == 1 and page.table.isVisible()
    assert cell(page, 0, 0) == "my-agent" and cell(page, 0, 2) == "MY_TOKEN=•••"
    assert "“gemini” was skipped" in page.result.text()
    [local] = page.local_boxes
    assert not local.isChecked()  # its model runs elsewhere unless the person says
    local.click()
    assert [d.id for d in dialog.providers.drafts] == ["ollama"]  # not a model provider

    save(qtbot, dialog)
    raw = tomllib.loads(home.config.read_text(encoding="utf-8"))
    assert raw["discover_local"] is False
    assert [p["id"] for p in raw["providers"]] == ["ollama", "my-agent"]
    assert raw["providers"][1] == {
        "id": "my-agent",
        "kind": "acp",
        "command": str(program),
        "args": ["acp"],
        "env": {"MY_TOKEN": SECRET},
        "local": True,
        "enabled": True,
    }
    [agent] = agent_providers(load_config())
    assert (agent.id, agent.command, agent.args, agent.is_local) == (
        "my-agent",
        str(program),
        ("acp",),
        True,
    )
    assert agent.env == (("MY_TOKEN", SECRET),)
    assert [a.id for a in agent_providers(session.controller.config)] == ["my-agent"]
    assert not (tmp_path / "ran").exists()  # nothing ran the command


def test_a_saved_agent_keeps_its_table_and_can_be_removed(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    with home.config.open("a", encoding="utf-8") as file:
        file.write(
            "\n# my agent\n[[providers]]\n"
            'id = "old"\nkind = "acp"\ncommand = "old-agent"\nargs = ["acp"]\n'
            f'env = {{ TOKEN = "{SECRET}" }}\n'
            '\n[[providers]]\nid = "other"\nkind = "acp"\ncommand = "other-agent"\n'
        )
    session = open_window()
    dialog = open_settings(qtbot, session)
    page = dialog.agents_page
    assert [cell(page, r, 0) for r in range(page.table.rowCount())] == ["old", "other"]
    page.local_boxes[0].click()
    page.table.selectRow(1)
    qtbot.mouseClick(page.remove_button, Qt.MouseButton.LeftButton)
    save(qtbot, dialog)
    text = home.config.read_text(encoding="utf-8")
    assert "# my agent" in text and "other-agent" not in text
    [old] = agent_providers(load_config())
    assert (old.command, old.args, old.env, old.is_local) == (
        "old-agent",
        ("acp",),
        (("TOKEN", SECRET),),
        True,
    )
