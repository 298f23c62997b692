"""The one set-up (app/assembly.py): what the window and `sightline ask` are built from —
the catalogue with what the store learned, the tool step, the runner, the agent engines —
and that importing it loads none of them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from app.assembly import Assembly
from app.config import Config
from app.store import Store
from app.turn.agent_folder import AgentFolders
from app.turn.agents import AgentEngines
from app.turn.runner import TurnRunner
from app.turn.tool_step import AllowAll, DenyAll
from routing.models import ProviderConfig
from tests.servers.ollama import FakeOllama

ROOT = Path(__file__).resolve().parents[2]


def config_for(tmp_path: Path, fake_ollama: FakeOllama, **settings: object) -> Config:
    ollama = ProviderConfig("ollama", "ollama", fake_ollama.base_url)
    agent = ProviderConfig("fake", "acp", "", command="fake-agent")
    return Config(
        providers=(ollama, agent),
        discover_local=False,
        data_dir=tmp_path / "data",
        **settings,  # type: ignore[arg-type]
    )


def test_the_catalogue_answers_with_what_the_store_learned(
    tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    assembly = Assembly.open(config_for(tmp_path, fake_ollama), environ={})
    with assembly.store:
        assembly.store.learned.remember_blind("ollama:llama3.2:3b")
        catalogue = assembly.catalogue()
        assert [p.id for p in catalogue.providers] == ["ollama"]  # agents aren't models
        assert catalogue.blind == frozenset({"ollama:llama3.2:3b"})
        # A command that keeps nothing (the door) has a catalogue all the same.
        assert Assembly(assembly.config, environ={}).catalogue().blind == frozenset()


def test_the_runner_takes_the_config_s_preferences_and_system_prompt(
    store: Store, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    config = config_for(
        tmp_path,
        fake_ollama,
        auto_may_use_cloud=True,
        vision_model="ollama:llava:7b",
        system_prompt="Be brief.",
    )
    assembly = Assembly(config, store, environ={})
    step = assembly.tool_step(DenyAll())
    runner = assembly.runner(assembly.catalogue(), step)
    assert isinstance(runner, TurnRunner) and runner.tool_step is step
    assert (runner.prefs.auto_may_use_cloud, runner.prefs.vision_model) == (True, "ollama:llava:7b")
    assert runner.defaults.system_prompt == "Be brief."


def test_the_window_s_step_keeps_allow_in_this_chat_with_the_chat(store: Store) -> None:
    assembly = Assembly(Config(data_dir=store.path.parent), store, environ={})
    chat = store.conversations.create()
    store.grants.grant(chat, "read_file")
    assert assembly.tool_step(AllowAll(), kept=True).allowed_in(chat) == {"read_file"}
    assert assembly.tool_step(AllowAll()).allowed_in(chat) == frozenset()  # ask's: this run's


def test_an_agent_s_ref_goes_to_the_agent_engines_a_model_s_to_the_runner(
    store: Store, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    assembly = Assembly(config_for(tmp_path, fake_ollama), store, environ={})
    catalogue = assembly.catalogue()
    step = assembly.tool_step(DenyAll())
    runner = assembly.runner(catalogue, step)
    folders = assembly.folders(tmp_path)
    agents = assembly.agent_engines(catalogue, step, folders, denied_hint=" Allow it.")
    assert isinstance(agents, AgentEngines) and isinstance(folders, AgentFolders)
    assert [a.id for a in agents.agents] == ["fake"] and agents.folders is folders
    assert (agents.tool_step, agents.denied_hint) == (step, " Allow it.")
    assert assembly.agent_named("fake:large#plan") == agents.agents[0]
    assert assembly.engine("fake:large", runner, agents) is agents
    assert assembly.engine("ollama:llama3.2:3b", runner, agents) is runner
    assert assembly.engine("auto", runner, agents) is runner
    assert assembly.engine("fake", runner, None) is runner  # no agents in this run


def test_the_mcp_servers_come_from_the_file_given_else_the_config_s(
    store: Store, tmp_path: Path
) -> None:
    servers = tmp_path / "mcp.json"
    servers.write_text(json.dumps({"mcpServers": {"notes": {"command": "notes-server"}}}))
    assembly = Assembly(Config(data_dir=store.path.parent), store, environ={})
    assert assembly.mcp_servers() == []
    assert [s.name for s in assembly.mcp_servers(servers)] == ["notes"]


def test_importing_the_set_up_loads_nothing_it_builds() -> None:
    probe = (
        "import sys, app.assembly; "
        "print([m for m in ('app.turn.runner', 'app.turn.tool_step', 'app.keys', "
        "'routing.catalogue', 'httpx', 'asyncio') if m in sys.modules])"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout.strip() == "[]"
