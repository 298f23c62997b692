"""The `mcpServers` JSON: every shape people paste, and every message a mistake gets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.tools.mcp.config import (
    REMOTE_UNSUPPORTED,
    McpConfigError,
    McpServerConfig,
    load_mcp_servers,
    parse_mcp_servers,
)
from tests.config_checks import WRITTEN_ENTRY, servers_as_written

CLAUDE_DESKTOP = """
{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"]
    },
    "github": {
      "command": "docker",
      "args": ["run", "-i", "--rm", "-e", "GITHUB_TOKEN", "ghcr.io/github/github-mcp-server"],
      "env": {"GITHUB_TOKEN": "ghp_example"}
    }
  }
}
"""


def error_of(text: str) -> str:
    with pytest.raises(McpConfigError) as caught:
        parse_mcp_servers(text)
    return str(caught.value)


def servers(inner: dict[str, object]) -> str:
    return json.dumps({"mcpServers": inner})


# -- shapes that work ------------------------------------------------------------


def test_claude_desktop_file_as_is() -> None:
    configs = parse_mcp_servers(CLAUDE_DESKTOP)
    assert [c.name for c in configs] == ["filesystem", "github"]
    files, github = configs
    assert files == McpServerConfig(
        name="filesystem",
        command="npx",
        args=("-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"),
    )
    assert dict(github.env) == {"GITHUB_TOKEN": "ghp_example"}
    assert github.cwd is None and github.unsupported == ""


def test_bare_inner_object() -> None:
    configs = parse_mcp_servers('{"echo": {"command": "python", "args": ["-m", "echo"]}}')
    assert configs == [McpServerConfig("echo", "python", ("-m", "echo"))]


def test_cwd_and_optional_nulls() -> None:
    text = servers({"a": {"command": "x", "cwd": "/srv/a", "args": None, "env": None}})
    assert parse_mcp_servers(text) == [McpServerConfig("a", "x", cwd="/srv/a")]


def test_disabled_entries_are_left_out_even_when_incomplete() -> None:
    text = servers({"off": {"disabled": True}, "on": {"command": "x", "disabled": False}})
    assert [c.name for c in parse_mcp_servers(text)] == ["on"]


def test_unknown_keys_other_clients_use_are_ignored() -> None:
    text = servers({"a": {"command": "x", "autoApprove": ["read"], "timeout": 60}})
    assert parse_mcp_servers(text) == [McpServerConfig("a", "x")]


def test_explicit_stdio_type() -> None:
    assert parse_mcp_servers(servers({"a": {"type": "stdio", "command": "x"}}))[0].command == "x"


@pytest.mark.parametrize(
    "entry",
    [
        {"url": "https://mcp.example.com/mcp"},
        {"type": "http", "url": "https://mcp.example.com/mcp"},
        {"type": "sse", "url": "https://mcp.example.com/sse"},
        {"type": "streamable-http", "command": "ignored"},
        {"serverUrl": "https://mcp.example.com/sse"},
    ],
)
def test_remote_servers_are_recognised_and_reported(entry: dict[str, object]) -> None:
    (config,) = parse_mcp_servers(servers({"remote": entry}))
    assert config.name == "remote" and config.command == ""
    assert config.unsupported.startswith(REMOTE_UNSUPPORTED)
    assert REMOTE_UNSUPPORTED == "remote MCP servers are not supported yet"


def test_remote_problem_names_the_url() -> None:
    (config,) = parse_mcp_servers(servers({"r": {"url": "https://mcp.example.com/mcp"}}))
    assert "https://mcp.example.com/mcp" in config.unsupported


def test_empty_mcp_servers_is_no_servers() -> None:
    assert parse_mcp_servers('{"mcpServers": {}}') == []
    assert parse_mcp_servers("{}") == []


def test_byte_order_mark_is_ignored() -> None:
    assert parse_mcp_servers('\ufeff{"a": {"command": "x"}}')[0].name == "a"


def test_config_is_frozen_and_hashable() -> None:
    (config,) = parse_mcp_servers(servers({"a": {"command": "x", "env": {"K": "v"}}}))
    with pytest.raises(AttributeError):
        config.command = "y"  # type: ignore[misc]
    with pytest.raises(TypeError):
        config.env["K"] = "w"  # type: ignore[index]
    assert hash(config) == hash(McpServerConfig("a", "x", env={"K": "v"}))


def test_names_with_odd_characters_are_quoted_in_messages() -> None:
    message = error_of(servers({"my server": {"args": []}}))
    assert 'mcpServers["my server"].command is missing' in message


# -- every mistake, in words -----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (servers({"foo": {"args": []}}), "mcpServers.foo.command is missing"),
        (servers({"foo": {"command": None}}), "mcpServers.foo.command is missing"),
        (servers({"foo": {"command": "  "}}), "mcpServers.foo.command is empty"),
        (servers({"foo": {"command": 5}}), "mcpServers.foo.command must be a string, not a number"),
        (
            servers({"foo": {"command": "x", "args": "-y pkg"}}),
            "mcpServers.foo.args must be a list of strings, not a string",
        ),
        (
            servers({"foo": {"command": "x", "args": ["-y", 3]}}),
            "mcpServers.foo.args[1] must be a string, not a number",
        ),
        (
            servers({"foo": {"command": "x", "args": [None]}}),
            "mcpServers.foo.args[0] must be a string, not null",
        ),
        (
            servers({"foo": {"command": "x", "env": {"PORT": 8080}}}),
            'mcpServers.foo.env.PORT must be a string, not a number (write "8080" in quotes)',
        ),
        (
            servers({"foo": {"command": "x", "env": {"DEBUG": True}}}),
            "mcpServers.foo.env.DEBUG must be a string, not true",
        ),
        (
            servers({"foo": {"command": "x", "env": ["A=1"]}}),
            "mcpServers.foo.env must be an object of names and string values",
        ),
        (
            servers({"foo": {"command": "x", "env": {"A=B": "1"}}}),
            'mcpServers.foo.env["A=B"] is not a usable variable name',
        ),
        (
            servers({"foo": {"command": "x", "env": {"": "1"}}}),
            'mcpServers.foo.env[""] is not a usable variable name',
        ),
        (
            servers({"foo": {"command": "x", "cwd": 1}}),
            "mcpServers.foo.cwd must be a string, not a number",
        ),
        (servers({"foo": {"command": "x", "cwd": ""}}), "mcpServers.foo.cwd is empty"),
        (
            servers({"foo": {"command": "x\u0000y"}}),
            "mcpServers.foo.command contains a NUL character",
        ),
        (servers({"foo": {"command": "x", "disabled": "yes"}}), "mcpServers.foo.disabled must be"),
        (
            servers({"foo": {"type": "websocket", "command": "x"}}),
            'mcpServers.foo.type must be "stdio"',
        ),
        (servers({"foo": "npx server"}), "mcpServers.foo must be an object like"),
        (servers({"foo": ["npx"]}), "not a list"),
        (servers({"": {"command": "x"}}), "a server needs a name that is not empty"),
        ('{"mcpServers": []}', "mcpServers must be an object, not a list"),
        ('{"mcpServers": null}', "mcpServers must be an object, not null"),
        ("[1, 2]", "the settings must be a JSON object"),
        ('"text"', "the settings must be a JSON object"),
        ('{"command": "npx", "args": []}', "looks like the settings of one server; give it a name"),
        ("", "is empty"),
        ("   \n", "is empty"),
    ],
)
def test_mistakes_say_what_and_where(text: str, expected: str) -> None:
    message = error_of(text)
    assert expected in message
    assert message.startswith("pasted text: ")


def test_json_syntax_errors_give_line_and_column() -> None:
    text = '{\n  "mcpServers": {\n    "a": {"command": "x"}\n    "b": {"command": "y"}\n  }\n}'
    assert (
        error_of(text) == "pasted text, line 4, column 5: not valid JSON: Expecting ',' delimiter"
    )
    with pytest.raises(McpConfigError) as caught:
        parse_mcp_servers(text)
    assert caught.value.position == (4, 5)  # where Settings puts the cursor


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ('{"a": {"command": "x",}}', "JSON does not allow a comma before a closing bracket"),
        ('{\n  // my servers\n  "a": {"command": "x"}\n}', "JSON does not allow comments"),
        ("{'a': {'command': 'x'}}", 'JSON needs "double quotes"'),
    ],
)
def test_usual_syntax_slips_get_a_hint(text: str, hint: str) -> None:
    message = error_of(text)
    assert message.startswith("pasted text, line 1") or message.startswith("pasted text, line 2")
    assert "not valid JSON: " in message and hint in message


def test_a_server_named_twice_is_refused() -> None:
    text = '{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}'
    assert "mcpServers.a is named twice" in error_of(text)


def test_deep_nesting_and_huge_numbers_are_errors_not_crashes() -> None:
    assert "nested too deeply" in error_of("[" * 100_000)
    assert "number too long to read" in error_of('{"a": {"command": "x", "n": ' + "9" * 5000 + "}}")


def test_source_names_where_the_text_came_from() -> None:
    with pytest.raises(McpConfigError, match=r"^settings box: mcpServers\.a\.command is missing"):
        parse_mcp_servers(servers({"a": {}}), source="settings box")


# -- files -----------------------------------------------------------------------


def test_load_a_file(tmp_path: Path) -> None:
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(CLAUDE_DESKTOP, encoding="utf-8")
    assert [c.name for c in load_mcp_servers(path)] == ["filesystem", "github"]


def test_load_a_file_with_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_bytes(b"\xef\xbb\xbf" + servers({"a": {"command": "x"}}).encode())
    assert load_mcp_servers(path)[0].command == "x"


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(servers({"a": {"args": []}}), encoding="utf-8")
    with pytest.raises(McpConfigError, match=r"mcp\.json: mcpServers\.a\.command is missing"):
        load_mcp_servers(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(McpConfigError, match=r"Can't read .*nowhere\.json"):
        load_mcp_servers(tmp_path / "nowhere.json")


def test_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_bytes(b'{"a": {"command": "caf\xe9"}}')
    with pytest.raises(McpConfigError, match="is not UTF-8 text"):
        load_mcp_servers(path)


# -- no input makes it crash -------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)
ENTRY_KEYS = st.sampled_from(["command", "args", "env", "cwd", "disabled", "type", "url"])


def parses_or_explains(text: str) -> None:
    try:
        configs = parse_mcp_servers(text)
    except McpConfigError as exc:
        assert str(exc).startswith(("pasted text: ", "pasted text, line "))
    else:
        servers_as_written(text, configs)


@given(st.text())
def test_any_text_parses_or_explains(text: str) -> None:
    parses_or_explains(text)


@given(
    st.dictionaries(st.text(), st.dictionaries(ENTRY_KEYS, JSON_VALUES) | WRITTEN_ENTRY, max_size=3)
)
def test_any_entries_parse_or_explain(inner: dict[str, object]) -> None:
    parses_or_explains(servers(inner))
    parses_or_explains(json.dumps(inner))
