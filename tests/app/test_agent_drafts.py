"""The agents Settings edits, written into the config file as `[[providers]]` tables."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest

from app.agent_drafts import AgentDraft, draft_of, write_new_agents
from app.agent_servers import read_agent_servers
from app.config import ConfigError, agent_providers, parse_config
from app.config_file import save_providers
from routing.secrets import redact

DATA = Path("/tmp/sightline-data")
ZED = {
    "agent_servers": {
        "My Agent": {"command": "opencode", "args": ["acp"], "env": {"K": "secret-v"}}
    }
}


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
