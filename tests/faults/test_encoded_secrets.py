"""Every configured secret stays out of what Sightline keeps, in every form it is echoed in.

Whole `sightline` processes against loopback servers and real child programs:

- the Responses and Gemini servers say back the key they were sent, in base64 and hex,
  in an error body and in an error event in the middle of a stream;
- an MCP server returns its `env` token as a tool's result (raw, base64, hex);
- an ACP agent and Codex print their `env` tokens on their stderr, which is their log.

Then the log, the database, each chat's Markdown and JSON export and everything printed
are searched for every form of every secret (tests/secret_checks.py), and the stored
error notices and tool results are read to see that `[redacted]` stands in their place.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from subprocess import CompletedProcess

import pytest

from tests.faults.cli import ROOT, bare_env, sightline
from tests.secret_checks import leaks
from tests.servers.gemini import FakeGemini
from tests.servers.gemini import Reply as GeminiReply
from tests.servers.gemini import error_reply as gemini_error
from tests.servers.mcp_server import ARGS as MCP_ARGS
from tests.servers.openai_responses import FakeResponses
from tests.servers.openai_responses import Reply as ResponsesReply
from tests.servers.openai_responses import error_reply as responses_error

RESPONSES_KEY = "respkey-7f3a9c1e5b2d4f6081"  # no shape a pattern knows: only registering finds it
GEMINI_KEY = "gemkey-1c2d3e4f5a6b7c8d9e0f"
MCP_TOKEN = "vault-tøken-99aa88bb77cc66"  # not ASCII: JSON may write \u00f8
AGENT_TOKEN = "agent-secret-5f4e3d2c1b0a99"
CODEX_TOKEN = "codex-secret-0a1b2c3d4e5f66"
SECRETS = (RESPONSES_KEY, GEMINI_KEY, MCP_TOKEN, AGENT_TOKEN, CODEX_TOKEN)

# A program that prints its token as a program logging its settings does, in every form,
# then is the fake agent (or the fake Codex) it wraps.
PRINTS_ITS_TOKEN = """
import base64, json, os, runpy, sys
from urllib.parse import quote
sys.path.insert(0, {root!r})
token = os.environ[{name!r}]
data = token.encode()
for said in (
    token, json.dumps(token), quote(token, safe=""), base64.b64encode(data).decode(),
    base64.b64encode(json.dumps({{"auth": token}}).encode()).decode(), data.hex().upper(),
):
    print("settings:", said, file=sys.stderr, flush=True)
runpy.run_module({module!r}, run_name="__main__")
"""


def wrapped(name: str, module: str) -> str:
    """The program that prints the variable `name` and then runs `module`."""
    return PRINTS_ITS_TOKEN.format(root=str(ROOT), name=name, module=module)


@dataclass
class Home:
    root: Path
    env: dict[str, str]
    responses: FakeResponses
    gemini: FakeGemini
    runs: list[CompletedProcess[str]] = field(default_factory=list)

    @property
    def data(self) -> Path:
        return self.root / "data"

    def run(self, *args: str) -> CompletedProcess[str]:
        done = sightline(self.env, *args)
        self.runs.append(done)
        return done


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Home]:
    with FakeResponses(api_key=RESPONSES_KEY) as responses, FakeGemini(api_key=GEMINI_KEY) as gem:
        folder = tmp_path / "config"
        folder.mkdir()
        vault = {"command": sys.executable, "args": list(MCP_ARGS), "cwd": str(ROOT)}
        (folder / "mcp.json").write_text(
            json.dumps({"mcpServers": {"vault": vault | {"env": {"VAULT_TOKEN": MCP_TOKEN}}}}),
            encoding="utf-8",
        )
        agent = wrapped("AGENT_TOKEN", "tests.servers.acp_agent")
        codex = wrapped("CODEX_TOKEN", "tests.servers.codex_app_server")
        state = json.dumps(str(tmp_path / "codex-state.json"))
        (folder / "config.toml").write_text(
            'discover_local = false\nmcp_config = "mcp.json"\n\n'
            f'[[providers]]\nid = "oa"\nkind = "openai"\nbase_url = "{responses.url}"\n\n'
            f'[[providers]]\nid = "gem"\nkind = "gemini"\nbase_url = "{gem.base_url}"\n\n'
            f'[[providers]]\nid = "fake"\nkind = "acp"\ncommand = {json.dumps(sys.executable)}\n'
            f'args = ["-c", {json.dumps(agent)}]\n'
            f'env = {{ AGENT_TOKEN = "{AGENT_TOKEN}" }}\n\n'
            f'[[providers]]\nid = "codex"\nkind = "codex"\n'
            f"command = {json.dumps(sys.executable)}\n"
            f'args = ["-c", {json.dumps(codex)}]\n'
            f'env = {{ CODEX_TOKEN = "{CODEX_TOKEN}", FAKE_CODEX_STATE = {state} }}\n'
            'model_provider = "loopback"\n',
            encoding="utf-8",
        )
        env = bare_env(
            tmp_path,
            folder / "config.toml",
            OPENAI_API_KEY=RESPONSES_KEY,
            GEMINI_API_KEY=GEMINI_KEY,
        )
        yield Home(tmp_path, env, responses, gem)


def stored_texts(data: Path, kind: str) -> list[str]:
    """The text and details of every stored notice, or the parts of every stored message."""
    # Closed here, not when collected: the last connection to close removes the -wal and
    # -shm files, which must not happen while the test reads the folder's files.
    with closing(sqlite3.connect(data / "sightline.db")) as db:
        if kind == "notice":
            rows = db.execute("SELECT text || ' ' || details FROM items WHERE kind = 'notice'")
        else:
            rows = db.execute("SELECT text || ' ' || parts FROM items WHERE kind = 'message'")
        return [row[0] for row in rows]


def test_no_secret_is_kept_or_printed_in_any_form(home: Home) -> None:
    echo = "refused the key {key_base64} (hex {key_hex}, url-safe {key_base64url})"
    # The Responses wire: an error body, then an error event mid-stream.
    home.responses.enqueue(responses_error(400, echo))
    assert home.run("ask", "--model", "oa:gpt-4.1-mini", "hello").returncode == 1
    home.responses.enqueue(
        ResponsesReply(text="Partly", midstream_error={"code": "server_error", "message": echo})
    )
    assert home.run("ask", "--model", "oa:gpt-4.1-mini", "hello").returncode == 1
    # The Gemini wire: the same two.
    home.gemini.enqueue(gemini_error(400, "INVALID_ARGUMENT", echo))
    assert home.run("ask", "--model", "gem:gemini-2.5-flash", "hello").returncode == 1
    home.gemini.enqueue(
        GeminiReply(
            text="Partly",
            midstream_error={"error": {"code": 500, "message": echo, "status": "INTERNAL"}},
        )
    )
    assert home.run("ask", "--model", "gem:gemini-2.5-flash", "hello").returncode == 1
    # An MCP server's token as a tool's result, raw, in base64 and in hex.
    calls = [
        {"name": "vault__env", "arguments": {"name": "VAULT_TOKEN", "form": form}}
        for form in ("raw", "base64", "hex")
    ]
    home.responses.enqueue(ResponsesReply(tool_calls=calls), ResponsesReply(text="Done."))
    tools = home.run("ask", "--allow-tools", "--model", "oa:gpt-4.1-mini", "read the token")
    assert tools.returncode == 0, tools.stderr
    # An agent and Codex that print their tokens on stderr as they start.
    agent = home.run("ask", "--model", "fake", "hello")
    assert agent.returncode == 0 and "You said: hello" in agent.stdout, agent.stderr
    codex = home.run("ask", "--model", "codex", "hello")
    assert codex.returncode == 0, codex.stderr

    chats = json.loads(home.run("chats", "--json").stdout)
    assert len(chats) == 7
    exports = [
        home.run("export", chat["id"], "--format", form).stdout
        for chat in chats
        for form in ("md", "json")
    ]
    assert all(exports)

    # What was redacted reached each place, so the search below had something to miss.
    log = (home.data / "logs" / "sightline.log").read_text(encoding="utf-8")
    printed = [line for line in log.splitlines() if ": settings: " in line]
    assert len(printed) == 12 and all("[redacted]" in line for line in printed), log
    assert sum(" fake: settings: " in line for line in printed) == 6
    notices = " ".join(stored_texts(home.data, "notice"))
    assert notices.count("refused the key [redacted] (hex [redacted], url-safe [redacted]") >= 4
    tool_results = [t for t in stored_texts(home.data, "message") if "tool_result" in t]
    assert len(tool_results) == 1 and tool_results[0].count("[redacted]") == 3
    # The model was given the results (and a turn later a person reads them) redacted.
    assert "[redacted]" in json.dumps(home.responses.chat_requests()[-1]["input"])

    found = [
        f"{path.relative_to(home.root)}: {leak}"
        for path in sorted(p for p in home.data.rglob("*") if p.is_file())
        for leak in leaks(path.read_bytes().decode("utf-8", "replace"), *SECRETS)
    ]
    found += [
        f"export {n}: {leak}" for n, text in enumerate(exports) for leak in leaks(text, *SECRETS)
    ]
    for n, done in enumerate(home.runs):
        found += [f"run {n}: {leak}" for leak in leaks(done.stdout + done.stderr, *SECRETS)]
    assert found == [], "\n".join(found)
