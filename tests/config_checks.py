"""What a reader of pasted settings must give back for what was written: entries written
well (so a property reaches the readers' success, not only their errors), and the oracles
the `mcpServers` and `agent_servers` properties share (tests/app/tools/mcp/test_config.py,
tests/fuzz/test_config.py)."""

from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import strategies as st

from app.agent_servers import AgentPaste
from app.config_check import ID_PATTERN
from app.tools.mcp.config import REMOTE_UNSUPPORTED, McpServerConfig

_WORDS = st.text(max_size=10).filter(lambda text: "\0" not in text)
_NAMED = st.text(
    st.characters(codec="utf-8", categories=["L", "N", "P", "S"], include_characters=" "),
    max_size=10,
)

# An entry as both readers take it: a program to start, with its args, env and folder.
WRITTEN_ENTRY = st.fixed_dictionaries(
    {"command": _NAMED.filter(str.strip)},
    optional={
        "args": st.lists(_WORDS, max_size=3),
        "env": st.dictionaries(
            st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,7}", fullmatch=True), _WORDS
        ),
        "cwd": _WORDS.filter(str.strip),
        "disabled": st.booleans(),
        "type": st.just("stdio"),
    },
) | st.fixed_dictionaries({"url": st.text(max_size=20)})


def servers_as_written(text: str, servers: list[McpServerConfig]) -> None:
    """The servers read from `text` are its enabled entries, in order, each as written:
    a local one with its command, args, env and folder; a remote one kept only to be named."""
    data = json.loads(text.removeprefix("\ufeff"))
    entries = data.get("mcpServers", data)
    enabled = [
        (name, entry) for name, entry in entries.items() if entry.get("disabled") is not True
    ]
    assert [server.name for server in servers] == [name for name, _ in enabled]
    for server, (_, entry) in zip(servers, enabled, strict=True):
        if server.unsupported:
            assert server.unsupported.startswith(REMOTE_UNSUPPORTED) and not server.command
            assert "url" in entry or "serverUrl" in entry or entry.get("type") != "stdio"
            continue
        assert server.command == entry["command"]
        assert server.args == tuple(entry.get("args") or ())
        assert dict(server.env) == (entry.get("env") or {})
        assert server.cwd == entry.get("cwd")


def agents_can_be_saved(pasted: AgentPaste) -> None:
    """Each agent found has an id of its own that the config file takes."""
    ids = [agent.id for agent in pasted.agents]
    assert len(set(ids)) == len(ids)
    assert all(ID_PATTERN.match(agent_id) for agent_id in ids)


def agents_as_written(entries: dict[str, Any], pasted: AgentPaste) -> None:
    """Read from `{"agent_servers": entries}`: every entry is an agent or skipped, in order,
    and an agent starts the program its entry names, with the args and env written."""
    if not entries:
        assert pasted.error and not pasted.agents
        return
    agents = {agent.name: agent for agent in pasted.agents}
    assert [a.name for a in pasted.agents] + [s.name for s in pasted.skipped] == [
        name for name in entries if name in agents
    ] + [name for name in entries if name not in agents]
    for name, agent in agents.items():
        entry = entries[name]
        assert agent.command == os.path.expanduser(entry["command"].strip())
        assert agent.args == tuple(entry.get("args") or ())
        assert dict(agent.env) == (entry.get("env") or {})
