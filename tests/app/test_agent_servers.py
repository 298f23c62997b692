"""Zed's `agent_servers` JSON read as pasted, the ids it gets, and the tables it becomes."""

from __future__ import annotations

import json
import os
import stat
import tomllib
from pathlib import Path

import pytest

from app.agent_servers import (
    MAX_PASTE_BYTES,
    AgentDraft,
    agent_id_for,
    command_status,
    draft_of,
    masked_env,
    read_agent_servers,
    unique_id,
    without_comments,
    without_trailing_commas,
    write_new_agents,
)
from app.config import ConfigError, agent_providers, parse_config
from app.config_file import save_providers
from routing.secrets import redact

DATA = Path("/tmp/sightline-data")
ZED = {
    "agent_servers": {
        "My Agent": {"command": "opencode", "args": ["acp"], "env": {"K": "secret-v"}},
    }
}


def test_the_zed_shape_as_pasted() -> None:
    paste = read_agent_servers(json.dumps({**ZED, "theme": "One Dark", "vim_mode": True}))
    assert paste.ok and not paste.skipped
    [agent] = paste.agents
    assert (agent.name, agent.id, agent.command, agent.args) == (
        "My Agent",
        "my-agent",
        "opencode",
        ("acp",),
    )
    assert agent.env == (("K", "secret-v"),)
    assert "secret-v" not in repr(agent)  # env may hold tokens


def test_the_bare_inner_object_and_type_custom() -> None:
    text = json.dumps({"OpenCode": {"type": "custom", "command": "opencode", "args": ["acp"]}})
    [agent] = read_agent_servers(text).agents
    assert (agent.id, agent.command, agent.args, agent.env) == (
        "opencode",
        "opencode",
        ("acp",),
        (),
    )


def test_comments_and_trailing_commas_as_zed_settings_allow() -> None:
    text = """{
      // Zed's settings.json
      "agent_servers": {
        /* the one I use */
        "OpenCode": {
          "command": "opencode", // started over stdio
          "args": ["acp", "http://a//b", "/* not a comment */",],
        },
      },
    }"""
    [agent] = read_agent_servers(text).agents
    assert agent.args == ("acp", "http://a//b", "/* not a comment */")


def test_comment_removal_keeps_lines_and_columns() -> None:
    text = '{"a": 1, // note\n /* two\nlines */ "b": [1,],}'
    plain = without_trailing_commas(without_comments(text))
    assert len(plain) == len(text) and plain.count("\n") == text.count("\n")
    assert json.loads(plain) == {"a": 1, "b": [1]}
    assert without_comments('"a // b \\" /* c"') == '"a // b \\" /* c"'


def test_name_only_entries_are_skipped_with_words_and_the_rest_are_read() -> None:
    text = json.dumps(
        {
            "agent_servers": {
                "gemini": {},
                "claude": {"default_mode": "plan"},
                "codex": {"ignore_system_prompt": True},
                "OpenCode": {"command": "opencode", "args": ["acp"]},
                "broken": {"command": "x", "args": "acp"},
                "odd": "opencode",
            }
        }
    )
    paste = read_agent_servers(text)
    assert paste.ok and [a.id for a in paste.agents] == ["opencode"]
    reasons = {s.name: s.reason for s in paste.skipped}
    assert set(reasons) == {"gemini", "claude", "codex", "broken", "odd"}
    assert "no command" in reasons["gemini"] and "Zed starts this agent itself" in reasons["gemini"]
    assert "args must be a list of strings" in reasons["broken"]
    assert "must be an object" in reasons["odd"]
    words = paste.words({"PATH": ""})
    assert "“gemini” is skipped: it has no command" in words
    assert "“OpenCode” as opencode: opencode acp — not found on PATH" in words


def test_only_name_only_entries_is_not_ok_but_says_why() -> None:
    paste = read_agent_servers('{"agent_servers": {"gemini": {}}}')
    assert not paste.ok and not paste.error
    assert paste.words().startswith("Found no agent Sightline can start:")


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ({"command": 3}, "command must be a string"),
        ({"command": "a\nb"}, "control character"),
        ({"command": "x", "env": {"A": 1}}, "env must be an object of strings"),
        ({"command": "x", "env": {"A B": "1"}}, "env name 'A B'"),
        ({"command": "x", "env": ["A"]}, "env must be an object of strings"),
        ({"command": "  "}, "no command"),
    ],
)
def test_a_broken_entry_is_skipped_with_what_to_change(entry: object, words: str) -> None:
    paste = read_agent_servers(json.dumps({"agent_servers": {"a": entry, "b": {"command": "y"}}}))
    assert [a.id for a in paste.agents] == ["b"]
    [skipped] = paste.skipped
    assert skipped.name == "a" and words in skipped.reason


def test_bad_json_names_the_line_and_column() -> None:
    paste = read_agent_servers('{\n  "agent_servers": {\n    "a": {"command": "x"\n    "b": 1')
    assert not paste.ok and paste.position == (4, 5)
    assert paste.error.startswith("Not valid JSON at line 4, column 5: Expecting ',' delimiter")
    assert paste.words() == paste.error
    single = read_agent_servers("{'agent_servers': {}}")
    assert 'JSON needs "double quotes"' in single.error


def test_an_unclosed_block_comment_says_where() -> None:
    paste = read_agent_servers('{"agent_servers": {}}\n  /* and more')
    assert paste.position == (2, 3) and "never closed" in paste.error


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[1, 2]", "must be an object like"),
        ('{"agent_servers": []}', "agent_servers must be an object"),
        ('{"agent_servers": {}}', "names no agent"),
        ('{"agent_servers": null}', "names no agent"),
        ('{"theme": "One Dark"}', "There is no agent_servers here ('theme'"),
        ('{"context_servers": {}}', "Settings → Tools"),
        ('{"mcpServers": {"fs": {"command": "npx"}}}', "MCP servers"),
        ("[" * 100_000, "nested too deeply"),
    ],
)
def test_what_is_not_agent_servers_is_named(text: str, words: str) -> None:
    paste = read_agent_servers(text)
    assert not paste.ok and words in paste.error


def test_empty_text_is_nothing_pasted() -> None:
    paste = read_agent_servers("  \n")
    assert paste.empty and not paste.ok and not paste.error
    assert "Nothing pasted yet" in paste.words()


def test_oversize_text_is_refused_before_it_is_read() -> None:
    big = json.dumps({"agent_servers": {"a": {"command": "x", "args": ["y" * MAX_PASTE_BYTES]}}})
    paste = read_agent_servers(big)
    assert "over 256 KiB" in paste.error
    # Counted in bytes: few characters of many bytes each are refused too.
    wide = json.dumps(
        {"agent_servers": {"a": {"command": "x", "args": ["é" * 140_000]}}}, ensure_ascii=False
    )
    assert len(wide) < MAX_PASTE_BYTES and "over 256 KiB" in read_agent_servers(wide).error


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("My Agent", "my-agent"),
        ("OpenCode", "opencode"),
        ("  Claude   Code  ", "claude-code"),
        ("Gemini CLI (preview)", "gemini-cli-preview"),
        ("Ünïcode Ägent", "unicode-agent"),
        ("work:agent", "workagent"),  # no colon: ids name providers in provider:model
        ("--dash_start.", "dash_start"),
        ("日本語", "agent"),
        ("", "agent"),
        ("a" * 80, "a" * 40),
    ],
)
def test_ids_come_from_names(name: str, expected: str) -> None:
    assert agent_id_for(name) == expected


def test_ids_are_unique_against_providers_and_each_other() -> None:
    assert unique_id("opencode", ["ollama"]) == "opencode"
    assert unique_id("opencode", ["opencode", "opencode-2"]) == "opencode-3"
    text = json.dumps(
        {"My Agent": {"command": "a"}, "my agent": {"command": "b"}, "MY-AGENT": {"command": "c"}}
    )
    paste = read_agent_servers(text, taken=["my-agent", "ollama"])
    assert [a.id for a in paste.agents] == ["my-agent-2", "my-agent-3", "my-agent-4"]


def test_a_tilde_command_is_expanded_as_zed_does(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/someone")
    [agent] = read_agent_servers('{"a": {"command": "~/bin/agent"}}').agents
    assert agent.command == "/home/someone/bin/agent"


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


# -- writing -------------------------------------------------------------------------------


def test_new_agents_are_written_as_acp_providers_that_config_loads(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        "# mine\ndiscover_local = false\n\n"
        '[[providers]]\nid = "ollama"\nkind = "ollama"\nbase_url = "http://127.0.0.1:11434"\n\n'
        '[[providers]]\nid = "old"\nkind = "acp"\ncommand = "old-agent"\n'
        'env = { TOKEN = "kept" }\n',
        encoding="utf-8",
    )
    [pasted] = read_agent_servers(json.dumps(ZED)).agents
    new = AgentDraft(pasted.id, pasted.command, pasted.args, pasted.env, local=True)
    old = AgentDraft("old", "old-agent", saved=True)
    config = parse_config(tomllib.loads(path.read_text()), path, DATA, {})
    write_new_agents(path, [old, new])
    save_providers(path, [config.providers[0], new.to_config(), old.to_config()])
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# mine\n")
    assert 'env = {K = "secret-v"}' in text or 'env = { K = "secret-v" }' in text
    loaded = parse_config(tomllib.loads(text), path, DATA, {})
    agents = {a.id: a for a in agent_providers(loaded)}
    assert list(agents) == ["my-agent", "old"]  # in the order given
    mine = agents["my-agent"]
    assert (mine.command, mine.args, mine.env, mine.is_local) == (
        "opencode",
        ("acp",),
        (("K", "secret-v"),),
        True,
    )
    assert agents["old"].env == (("TOKEN", "kept"),)  # a saved agent's table is left as it is
    assert os.stat(path).st_mode & 0o777 == 0o600


def test_a_reused_id_replaces_the_old_table(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[[providers]]\nid = "a"\nkind = "acp"\ncommand = "old"\n', encoding="utf-8")
    write_new_agents(path, [AgentDraft("a", "new")])
    loaded = parse_config(tomllib.loads(path.read_text()), path, DATA, {})
    assert [(p.id, p.command) for p in loaded.providers] == [("a", "new")]


def test_nothing_new_leaves_the_file_alone(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    write_new_agents(path, [AgentDraft("a", "x", saved=True)])
    assert not path.exists()
    write_new_agents(path, [AgentDraft("a", "x")])  # a missing file is made
    assert agent_providers(parse_config(tomllib.loads(path.read_text()), path, DATA, {}))


def test_a_broken_file_is_not_written(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("providers = [[[", encoding="utf-8")
    with pytest.raises(ConfigError, match="can't be updated"):
        write_new_agents(path, [AgentDraft("a", "x")])
    path.write_text('providers = [{ id = "o", kind = "ollama" }]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[\[providers\]\] table"):
        write_new_agents(path, [AgentDraft("a", "x")])
    assert path.read_text() == 'providers = [{ id = "o", kind = "ollama" }]\n'


def test_a_pasted_agents_env_values_are_secrets_once_it_is_added() -> None:
    paste = read_agent_servers(
        '{"agent_servers": {"Mine": {"command": "mine", "env": {"MINE_TOKEN": "pasted-tok-4455"}}}}'
    )
    assert redact("pasted-tok-4455") == "pasted-tok-4455"  # only read: not one of the person's
    draft = draft_of(paste.agents[0])
    assert draft.env == (("MINE_TOKEN", "pasted-tok-4455"),)
    assert redact("the agent said pasted-tok-4455") == "the agent said [redacted]"
