"""The Tools page's settings without a window: the MCP servers JSON checked, the routing
choices, and saving them to the config file and the MCP file."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from app.config import Config, load_config
from app.presenters.settings_model import save_top_level
from app.presenters.tools_settings import (
    AUTOMATIC,
    ToolsSettings,
    check_mcp,
    vision_choices,
    write_tools_settings,
)
from routing.models import ModelInfo


def test_check_finds_servers_or_where_the_json_breaks() -> None:
    assert check_mcp("  ").empty and check_mcp("").ok
    found = check_mcp(
        '{"mcpServers": {"a b": {"command": "python3", "args": ["x y"]}, '
        '"c": {"command": "my tool"}}}'
    )
    assert found.words() == (
        "Found 2 servers; 1 can't start here (its command isn't installed):\n"
        '• a b: python3 "x y"\n'
        "• c: the command 'my tool' was not found on this computer; install it, or write "
        "its full path"
    )
    broken = check_mcp('{\n  "mcpServers": {\n    "a": {"command": "x"\n}')
    assert not broken.ok and broken.position is not None and broken.position[0] == 4
    wrong = check_mcp('{"mcpServers": {"a": {"command": 3}}}')
    assert "mcpServers.a.command must be a string" in wrong.error and wrong.position is None
    remote = check_mcp('{"mcpServers": {"r": {"url": "https://example.com/mcp"}}}')
    assert "not supported yet" in remote.words()


def test_vision_choices_list_models_that_see_and_keep_the_saved_one() -> None:
    models = [
        ModelInfo("ollama", "llava:7b", sees=True, local=True),
        ModelInfo("ollama", "llama3.2:3b", sees=False, local=True),
        ModelInfo("openai", "gpt-4o", sees=True, local=False),
    ]
    choices = vision_choices(models, "lmstudio:qwen-vl")
    assert [ref for _, ref in choices] == [
        "",
        "ollama:llava:7b",
        "openai:gpt-4o",
        "lmstudio:qwen-vl",
    ]
    assert choices[0][0] == AUTOMATIC
    assert "cloud" in choices[2][0] and "not offered right now" in choices[3][0]


def test_save_top_level_keeps_comments_and_tables(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '# mine\ndiscover_local = false\n\n[[providers]]\nid = "o"\nkind = "ollama"\n',
        encoding="utf-8",
    )
    save_top_level(path, {"vision_model": "o:llava", "auto_may_use_cloud": True})
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# mine\n")
    data = tomllib.loads(text)
    assert data["vision_model"] == "o:llava" and data["providers"][0]["id"] == "o"
    save_top_level(path, {"vision_model": None})
    assert "vision_model" not in tomllib.loads(path.read_text(encoding="utf-8"))


def test_mcp_text_goes_where_the_config_already_points(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('mcp_config = "tools/servers.json"\n', encoding="utf-8")
    config = Config(tmp_path / "data", mcp_config=tmp_path / "tools" / "servers.json", source=path)
    text = '{"mcpServers": {"a": {"command": "x"}}}'
    write_tools_settings(path, config, ToolsSettings(text, False, ""), mcp_changed=True)
    assert (tmp_path / "tools" / "servers.json").read_text(encoding="utf-8") == text + "\n"
    assert not (tmp_path / "mcp.json").exists()
    assert path.read_text(encoding="utf-8") == 'mcp_config = "tools/servers.json"\n'  # untouched
    # Emptied, the file stays, naming no servers.
    write_tools_settings(path, config, ToolsSettings("", False, ""), mcp_changed=True)
    saved = json.loads((tmp_path / "tools" / "servers.json").read_text(encoding="utf-8"))
    assert saved == {"mcpServers": {}}
    assert load_config({"SIGHTLINE_CONFIG": str(path)}).mcp_config == (
        tmp_path / "tools" / "servers.json"
    )
