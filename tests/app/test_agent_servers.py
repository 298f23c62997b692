"""Zed's `agent_servers` JSON read as pasted, what is skipped and why, and the ids it gets."""

from __future__ import annotations

import json

import pytest

from app.agent_servers import MAX_PASTE_BYTES, agent_id_for, read_agent_servers, unique_id

ZED = {
    "agent_servers": {
        "My Agent": {"command": "opencode", "args": ["acp"], "env": {"K": "secret-v"}}
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
        ({"command": "x", "env": {"A": 1}}, 'env.A must be a string, not a number (write "1"'),
        ({"command": "x", "env": {"A B": "1"}}, 'env["A B"] is not a usable variable name'),
        ({"command": "x", "args": ["a\0"]}, "args[0] contains a NUL character"),
        ({"command": "x", "env": {"A": "\0"}}, "env.A contains a NUL character"),
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
    assert paste.error == "pasted text, line 4, column 5: not valid JSON: Expecting ',' delimiter"
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
        (
            '{"theme": "One Dark"}',
            "pasted text: theme is not an agent, and there is no agent_servers",
        ),
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
