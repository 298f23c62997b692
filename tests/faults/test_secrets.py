"""API keys never land in Sightline's files: not the database, not the log, not the config folder.

`sightline models` and `sightline ask` run as whole processes with keys in the
environment (OPENAI_API_KEY, ANTHROPIC_API_KEY, DEEPSEEK_API_KEY) and one in the
config file's `api_key`, against loopback servers that check them. Then every file
under the data folder, the config folder and a private HOME is searched for every
key; only the config file the person wrote may hold one (their own).

The last test configures a secret of every shape Sightline is told about (a
5-character key, a key with `/`, `+` and `=`, a user name and password in a
`base_url`, a proxy's password, MCP tokens in `env`), makes providers and MCP
servers echo them back raw, JSON-escaped and URL-encoded, and searches every file
Sightline wrote, an export, and what each command printed, for every form of each.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from subprocess import CompletedProcess
from urllib.parse import quote, quote_plus

import pytest

from tests.faults.cli import ROOT, bare_env, sightline
from tests.servers.anthropic import FakeAnthropic
from tests.servers.loopback import closed_port
from tests.servers.mcp_server import EXIT_ENV, PRINT_ENV
from tests.servers.ollama import FakeOllama
from tests.servers.ollama import Reply as OllamaReply
from tests.servers.openai_chat import BAD_KEY, FakeOpenAI
from tests.servers.openai_chat import Reply as OpenAIReply

OPENAI_KEY = "sk-proj-ENVopenai0123456789abcdefXYZ"
ANTHROPIC_KEY = "sk-ant-api03-ENVanthropic-0123456789abcdef"
CONFIG_KEY = "cfgsecret-5f1d2c3b4a69788796a5b4c3"  # a shape no redaction pattern knows
WRONG_KEY = "dsk-wrong-77aa88bb99ccddeeff001122"  # refused; the server echoes it back
KEYS = (OPENAI_KEY, ANTHROPIC_KEY, CONFIG_KEY, WRONG_KEY)


@dataclass
class Setup:
    root: Path
    config: Path
    data: Path
    home: Path
    env: dict[str, str]
    mine: FakeOpenAI


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[Setup]:
    with (
        FakeOpenAI(api_key=OPENAI_KEY) as openai,
        FakeAnthropic(api_key=ANTHROPIC_KEY) as anthropic,
        FakeOpenAI(api_key=CONFIG_KEY) as mine,
        FakeOpenAI(api_key="the-right-one") as deepseek,
    ):
        config = tmp_path / "config" / "config.toml"
        config.parent.mkdir()
        config.write_text(
            "discover_local = false\n\n"
            f'[[providers]]\nid = "openai"\nkind = "openai"\nbase_url = "{openai.url}"\n\n'
            '[[providers]]\nid = "claude"\nkind = "anthropic"\n'
            f'base_url = "{anthropic.base_url}"\n\n'
            f'[[providers]]\nid = "mine"\nkind = "custom"\nbase_url = "{mine.url}"\n'
            f'api_key = "{CONFIG_KEY}"\n\n'
            f'[[providers]]\nid = "deepseek"\nkind = "deepseek"\nbase_url = "{deepseek.url}"\n',
            encoding="utf-8",
        )
        home = tmp_path / "home"
        home.mkdir()
        env = bare_env(
            tmp_path,
            config,
            XDG_CONFIG_HOME=str(home / ".config"),
            XDG_DATA_HOME=str(home / ".local" / "share"),
            XDG_CACHE_HOME=str(home / ".cache"),
            OPENAI_API_KEY=OPENAI_KEY,
            ANTHROPIC_API_KEY=ANTHROPIC_KEY,
            DEEPSEEK_API_KEY=WRONG_KEY,
        )
        yield Setup(tmp_path, config, tmp_path / "data", home, env, mine)


def files_holding_keys(*folders: Path) -> dict[str, list[str]]:
    """Every file under the folders that holds a key, with the keys it holds."""
    found: dict[str, list[str]] = {}
    for folder in folders:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            data = path.read_bytes()
            held = [key for key in KEYS if key.encode() in data]
            if held:
                found[str(path)] = held
    return found


def test_no_key_reaches_a_file_sightline_writes(setup: Setup) -> None:
    listed = sightline(setup.env, "models", "--json")
    assert listed.returncode == 0, listed.stderr
    providers = {row["provider"] for row in json.loads(listed.stdout)}
    assert providers == {"openai", "claude", "mine"}  # each key was used and accepted
    assert "deepseek" in listed.stderr and WRONG_KEY not in listed.stderr

    for model in ("openai:gpt-4o-mini", "claude:claude-haiku-4-5-20251001", "mine:gpt-4o-mini"):
        done = sightline(setup.env, "ask", "--json", "--model", model, "hello")
        assert done.returncode == 0, done.stderr
    refused = sightline(setup.env, "ask", "--model", "deepseek:deepseek-chat", "hello")
    assert refused.returncode == 1 and WRONG_KEY not in refused.stderr
    # A failure after the request went out, so the log gets the provider's words.
    setup.mine.enqueue(OpenAIReply(status=500, body={"error": {"message": "upstream failed"}}))
    failed = sightline(setup.env, "ask", "--model", "mine:gpt-4o-mini", "hello again")
    assert failed.returncode == 1

    assert (setup.data / "sightline.db").exists() and (setup.data / "logs").is_dir()
    assert (setup.data / "logs" / "sightline.log").stat().st_size > 0
    assert files_holding_keys(setup.data, setup.config.parent, setup.home) == {
        str(setup.config): [CONFIG_KEY]  # the person's own file, as they wrote it
    }


def test_a_key_a_provider_echoes_in_its_error_stays_out_of_the_log(setup: Setup) -> None:
    # Some servers and proxies repeat what they were sent in their error text.
    echo = f"upstream refused the request sent with Authorization: {CONFIG_KEY}"
    setup.mine.enqueue(OpenAIReply(status=500, body={"error": {"message": echo}}))
    failed = sightline(setup.env, "ask", "--model", "mine:gpt-4o-mini", "hello")
    assert failed.returncode == 1 and CONFIG_KEY not in failed.stderr
    assert files_holding_keys(setup.data) == {}


# -- every secret, in every form --------------------------------------------------

SHORT_KEY = "q7Zt4"  # five characters: too short for any shape, and below the old limit
SLASH_KEY = "sl/ash+key=0a1b2c3d/4e5f"  # JSON writes "/" as "\/"; URLs "%2F", "%2B", "%3D"
USER = "u5er-alice"
PASSWORD = "pa/ss:w0rd"  # written %-encoded in the base_url, read decoded by the client
PROXY_PASSWORD = "Pr0xy/pass-42"
MCP_TOKEN = "mcp-tøken/ü-0987654321"  # not ASCII: JSON may write it \u00f8 and \u00fc
CRASHY_TOKEN = "crashy-token-5566778899"
BASIC = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()  # as a client sends them
SECRETS = (SHORT_KEY, SLASH_KEY, USER, PASSWORD, PROXY_PASSWORD, MCP_TOKEN, CRASHY_TOKEN, BASIC)


def forms(secret: str) -> set[str]:
    """The forms a secret takes in someone else's words: raw, JSON-escaped, URL-encoded."""
    found = {secret, quote(secret, safe=""), quote_plus(secret)}
    for ascii_only in (True, False):
        inside = json.dumps(secret, ensure_ascii=ascii_only)[1:-1]
        found |= {inside, inside.replace("/", "\\/")}
    return found


def leaks(name: str, data: bytes) -> list[str]:
    """Each form of each secret found in the bytes, with its secret, for the failure message."""
    return [
        f"{name}: {form!r} (of {secret!r})"
        for secret in SECRETS
        for form in sorted(forms(secret))
        if form.encode() in data
    ]


def mcp_server(env: dict[str, str]) -> dict[str, object]:
    """The real stdio test server (tests/servers/mcp_server.py) with this `env`."""
    return {
        "command": sys.executable,
        "args": ["-m", "tests.servers.mcp_server"],
        "cwd": str(ROOT),
        "env": env,
    }


@dataclass
class Leaky:
    """Providers and MCP servers that echo every secret back, and where Sightline keeps things."""

    data: Path
    env: dict[str, str]
    openai: FakeOpenAI
    deepseek: FakeOpenAI
    mine: FakeOpenAI
    ollama: FakeOllama


@pytest.fixture
def leaky(tmp_path: Path) -> Iterator[Leaky]:
    with (
        FakeOpenAI() as openai,
        FakeOpenAI(api_key=SLASH_KEY) as deepseek,
        FakeOpenAI() as mine,
        FakeOllama() as ollama,
    ):
        folder = tmp_path / "config"
        folder.mkdir()
        (folder / "mcp.json").write_text(
            json.dumps(
                {
                    "mcpServers": {
                        # Prints its token, then exits before the handshake.
                        "leaky": mcp_server(
                            {"LEAKY_TOKEN": MCP_TOKEN, PRINT_ENV: "LEAKY_TOKEN", EXIT_ENV: "3"}
                        ),
                        # Prints its token, starts, and crashes in the middle of a call.
                        "crashy": mcp_server(
                            {"CRASHY_TOKEN": CRASHY_TOKEN, PRINT_ENV: "CRASHY_TOKEN"}
                        ),
                    }
                }
            ),
            encoding="utf-8",
        )
        userinfo = f"{USER}:{quote(PASSWORD, safe='')}"
        (folder / "config.toml").write_text(
            'discover_local = false\nmcp_config = "mcp.json"\n\n'
            f'[[providers]]\nid = "openai"\nkind = "openai"\nbase_url = "{openai.url}"\n\n'
            f'[[providers]]\nid = "deepseek"\nkind = "deepseek"\nbase_url = "{deepseek.url}"\n\n'
            f'[[providers]]\nid = "mine"\nkind = "custom"\n'
            f'base_url = "http://{userinfo}@127.0.0.1:{mine.port}/v1"\n\n'
            f'[[providers]]\nid = "gone"\nkind = "custom"\n'
            f'base_url = "http://{userinfo}@127.0.0.1:{closed_port()}/v1"\n\n'
            f'[[providers]]\nid = "ollama"\nkind = "ollama"\nbase_url = "{ollama.base_url}"\n',
            encoding="utf-8",
        )
        env = bare_env(
            tmp_path,
            folder / "config.toml",
            OPENAI_API_KEY=SHORT_KEY,
            DEEPSEEK_API_KEY=SLASH_KEY,
            # Never used here (every server is on loopback, reached directly), but its
            # password is a secret all the same.
            HTTPS_PROXY=f"http://proxy-user:{quote(PROXY_PASSWORD, safe='')}@127.0.0.1:9",
        )
        yield Leaky(tmp_path / "data", env, openai, deepseek, mine, ollama)


def echo_body() -> str:
    """An error body in a shape no wire knows, so it is logged as it came: every secret in it."""
    body = {
        "fault": {
            "seen": [SHORT_KEY, SLASH_KEY, USER, PASSWORD, PROXY_PASSWORD, MCP_TOKEN],
            "retry": "https://retry.example/again?"
            + "&".join(f"k{n}={quote(s, safe='')}" for n, s in enumerate(SECRETS)),
            "form": "&".join(f"k{n}={quote_plus(s)}" for n, s in enumerate(SECRETS)),
            "auth": f"Basic {BASIC}",
        }
    }
    # ensure_ascii's \u escapes, and "/" escaped as "\/", as PHP's json_encode writes it.
    return json.dumps(body).replace("/", "\\/")


def test_no_configured_secret_reaches_a_file_an_export_or_the_terminal_in_any_form(
    leaky: Leaky, tmp_path: Path
) -> None:
    runs: list[CompletedProcess[str]] = []

    def ask(model: str, *extra: str) -> CompletedProcess[str]:
        done = sightline(leaky.env, "ask", *extra, "--model", model, "hello")
        runs.append(done)
        return done

    # The key refused, and echoed raw in the error (as OpenAI's own 401 does).
    leaky.openai.enqueue(
        OpenAIReply(status=401, body=json.loads(json.dumps(BAD_KEY).replace("{key}", SHORT_KEY)))
    )
    refused = ask("openai:gpt-4o-mini")
    assert refused.returncode == 1 and "refused the API key" in refused.stderr
    # Every secret echoed JSON-escaped and URL-encoded in a body no wire knows.
    leaky.deepseek.enqueue(
        OpenAIReply(status=400, raw_body=echo_body(), content_type="application/json")
    )
    rejected = ask("deepseek:gpt-4o-mini")
    assert rejected.returncode == 1 and "HTTP 400" in rejected.stderr
    assert leaky.deepseek.headers[-1]["Authorization"] == f"Bearer {SLASH_KEY}"
    # An address with a user name and password in it, failing and refusing connections.
    leaky.mine.enqueue(OpenAIReply(status=500, body={"error": {"message": echo_body()}}))
    failed = ask("mine:gpt-4o-mini")
    assert failed.returncode == 1, failed.stderr
    ask("gone:gpt-4o-mini")  # Sightline picks a model that answers instead
    listed = sightline(leaky.env, "models")  # and names the provider nothing answered for
    runs.append(listed)
    assert "sightline: gone: Nothing answered at" in listed.stderr
    # MCP servers that print their tokens: one exits at once, one crashes mid-call.
    leaky.ollama.enqueue(
        OllamaReply(tool_calls=[{"name": "crashy__crash", "arguments": {}}]),
        OllamaReply(text="The tool crashed."),
    )
    tools = ask("ollama:qwen2.5vl:3b", "--allow-tools")
    assert tools.returncode == 0, tools.stderr
    assert "The MCP server leaky is unavailable" in tools.stderr
    told = leaky.ollama.chat_requests()[-1]["messages"][-1]
    assert "crashy stopped while running crash" in told["content"]

    exports = tmp_path / "exports"
    exports.mkdir()
    chats = json.loads(sightline(leaky.env, "chats", "--json").stdout)
    assert len(chats) == 5  # one per `ask`
    for chat in chats:
        for form in ("md", "json"):
            written = exports / f"{chat['id']}.{form}"
            done = sightline(leaky.env, "export", chat["id"], "--format", form, "-o", str(written))
            assert done.returncode == 0 and written.stat().st_size > 0, done.stderr

    log = (leaky.data / "logs" / "sightline.log").read_text(encoding="utf-8")
    # What was redacted did reach the log, so the search below had something to miss.
    assert "HTTP 400" in log and "HTTP 500" in log
    assert "MCP server crashy: starting with" in log
    assert log.count("[redacted]") >= len(SECRETS)
    found = [
        leak
        for folder in (leaky.data, exports)
        for path in sorted(p for p in folder.rglob("*") if p.is_file())
        for leak in leaks(str(path.relative_to(tmp_path)), path.read_bytes())
    ]
    for n, done in enumerate(runs):
        found += leaks(f"run {n} stdout", done.stdout.encode())
        found += leaks(f"run {n} stderr", done.stderr.encode())
    assert found == [], "\n".join(found)


LAST_RESORT = """
import logging, sys
from pathlib import Path
from app.logs import setup_logging
from routing.secrets import register_secret

assert setup_logging(Path(sys.argv[1])) is None  # a file, not a folder: no log file
register_secret(sys.argv[2])
logging.getLogger("app.turn.runner").warning("refused %s", sys.argv[2])
"""


def test_without_a_log_file_warnings_on_stderr_are_redacted_too(tmp_path: Path) -> None:
    # Python prints warnings to stderr itself when no handler could be set up.
    not_a_folder = tmp_path / "data"
    not_a_folder.write_text("", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", LAST_RESORT, str(not_a_folder), SHORT_KEY],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert "refused [redacted]" in done.stderr and SHORT_KEY not in done.stderr
