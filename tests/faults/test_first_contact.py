"""A newcomer's first commands, and hostile config files: one clear line each, never a traceback.

Every run is a whole `sightline` process with its memory capped (tests/faults/cli.py).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from PIL import Image

from app.store import Store
from tests.conftest import SightlineHome
from tests.faults.cli import NO_KEYRING, ROOT, command, one_clear_line, sightline
from tests.servers.ollama import FakeOllama, Reply

MODEL = "ollama:llama3.2:3b"


@pytest.mark.parametrize(
    ("model", "said"),
    [
        ("ollama", "names the provider but no model: write ollama:MODEL"),
        ("ollama:", "names the provider but no model: write ollama:MODEL"),
        (":llama3.2:3b", "names no provider: write PROVIDER:MODEL, such as ollama:llama3.2:3b"),
        ("llama3.2:3b", "no provider 'llama3.2'; did you mean ollama:llama3.2:3b?"),
        ("nowhere:x", "no provider 'nowhere' (providers: ollama;"),
    ],
)
def test_a_model_written_wrong_is_one_line_and_nothing_is_sent(
    home: SightlineHome, fake_ollama: FakeOllama, model: str, said: str
) -> None:
    done = sightline(home.env(), "ask", "--model", model, "hello")
    assert said in one_clear_line(done)
    assert fake_ollama.chat_requests() == []
    with Store.open(home.data) as store:
        assert store.conversations.list() == []  # refused before anything was kept


@pytest.mark.parametrize("prompt", ["", "   ", "\n\t"])
def test_an_empty_prompt_is_refused(
    home: SightlineHome, fake_ollama: FakeOllama, prompt: str
) -> None:
    done = sightline(home.env(), "ask", "--model", MODEL, prompt)
    assert "the prompt is empty" in one_clear_line(done)
    assert fake_ollama.chat_requests() == []


def test_nothing_reachable_names_the_addresses_tried(home: SightlineHome) -> None:
    env = home.env() | {"OLLAMA_HOST": "127.0.0.1:9"}
    (home.config).write_text("discover_local = true\n", encoding="utf-8")
    line = one_clear_line(sightline(env, "ask", "hello"))
    assert "Tried: ollama at 127.0.0.1:9, lmstudio at 127.0.0.1:1234" in line


def test_the_window_without_a_screen_says_how_to_run_headless(home: SightlineHome) -> None:
    env = {k: v for k, v in home.env().items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("QT_QPA_PLATFORM", None)
    done = sightline(env)
    assert done.returncode == 2
    line = one_clear_line(done)
    assert "no screen was found" in line and "sightline ask" in line


def test_ctrl_c_ends_the_json_stream_with_a_stopped_error(
    home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue(Reply(text="a slow answer " * 40, chunk_chars=2, delay=0.05))
    child = subprocess.Popen(
        command("ask", "--json", "--model", MODEL, "talk slowly"),
        env=home.env() | NO_KEYRING,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    first = json.loads(child.stdout.readline())  # the answer has begun
    assert first["type"] == "text"
    child.send_signal(signal.SIGINT)
    rest, err = child.communicate(timeout=30)
    lines = [json.loads(line) for line in rest.splitlines()]
    assert lines[-1] == {"type": "error", "kind": "stopped", "message": "stopped by the person"}
    assert child.returncode == 130 and "Traceback" not in err
    with Store.open(home.data) as store:
        [chat] = store.conversations.list()
        statuses = [getattr(i.item, "status", None) for i in store.items(chat.id)]
    assert [str(s) for s in statuses[:2]] == ["complete", "stopped"]


def test_the_describers_usage_is_told_apart(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    picture = tmp_path / "dot.png"
    Image.new("RGB", (8, 8), "red").save(picture)
    fake_ollama.enqueue(Reply(text="A dot.", eval_count=3), Reply(text="Red.", eval_count=5))
    done = sightline(
        home.env(), "ask", "--json", "--model", "ollama:gemma3:270m", "--attach", str(picture), "?"
    )
    assert done.returncode == 0, done.stderr
    usage = [json.loads(x) for x in done.stdout.splitlines() if '"usage"' in x]
    assert [(u["for"], u["output_tokens"]) for u in usage] == [("describer", 3), ("answer", 5)]


def test_two_first_runs_at_once_both_keep_their_message(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    # Each round starts two `ask`s together on a data folder that doesn't exist yet.
    for round_number in range(8):
        env = home.env() | {"SIGHTLINE_DATA_DIR": str(tmp_path / f"fresh-{round_number}")}
        with ThreadPoolExecutor(2) as pool:
            started = [
                pool.submit(sightline, env, "ask", "--model", MODEL, text)
                for text in ("one", "two")
            ]
            runs = [run.result() for run in started]
        for done in runs:
            assert done.returncode == 0, done.stderr
        with Store.open(tmp_path / f"fresh-{round_number}") as store:
            texts = sorted(store.messages(c.id)[0].text for c in store.conversations.list())
        assert texts == ["one", "two"]


# -- hostile config files -------------------------------------------------------------


def _config(home: SightlineHome, text: str | bytes) -> dict[str, str]:
    data = text.encode("utf-8") if isinstance(text, str) else text
    home.config.write_bytes(data)
    return home.env()


@pytest.mark.parametrize(
    ("base_url", "said"),
    [
        ("http://[::1:8080/v1", "an IPv6 host is written in brackets"),
        ("http://127.0.0.1:99999/v1", "its port must be a number from 1 to 65535"),
        ("http://127.0.0.1:8080/v1\\r\\nX-Evil: 1", "a line break or another control character"),
        ("http://127.0.0.1:port/v1", "its port is not a number"),
        ("http://", "it names no host"),
    ],
)
def test_a_base_url_that_cant_be_used_names_the_file_and_line(
    home: SightlineHome, base_url: str, said: str
) -> None:
    env = _config(home, f'[[providers]]\nkind = "custom"\nbase_url = "{base_url}"\n')
    line = one_clear_line(sightline(env, "models"))
    assert line.startswith(f"sightline: {home.config}, line 3: providers[0].base_url ")
    assert said in line


def test_a_config_nested_deeper_than_anyone_writes(home: SightlineHome) -> None:
    env = _config(home, "a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert "nested too deeply" in one_clear_line(sightline(env, "models"))


def test_a_byte_order_mark_is_not_a_setting(home: SightlineHome, fake_ollama: FakeOllama) -> None:
    text = (
        "discover_local = false\n[[providers]]\n"
        f'kind = "ollama"\nbase_url = "{fake_ollama.base_url}"\n'
    )
    env = _config(home, b"\xef\xbb\xbf" + text.encode())
    done = sightline(env, "models")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("special", ["/dev/zero", "/dev/urandom", "fifo", "folder", "huge"])
def test_a_config_path_that_is_no_config_file(
    home: SightlineHome, tmp_path: Path, special: str
) -> None:
    path = Path(special)
    if special == "fifo":
        path = tmp_path / "config.fifo"
        os.mkfifo(path)
    elif special == "folder":
        path = tmp_path
    elif special == "huge":
        path = tmp_path / "huge.toml"
        with path.open("wb") as handle:
            handle.truncate(2 * 10**9)  # sparse: nothing is written
    env = home.env() | {"SIGHTLINE_CONFIG": str(path)}
    line = one_clear_line(sightline(env, "models", timeout=20))
    assert str(path) in line


def test_memory_cap_is_real() -> None:
    # The cap the fault runs rely on does stop a child that reads without bound.
    code = "data = bytearray(2 * 1024**3)"
    done = subprocess.run(
        [sys.executable, "-c", code],
        preexec_fn=lambda: __import__("resource").setrlimit(
            __import__("resource").RLIMIT_AS, (1 << 30, 1 << 30)
        ),
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0 and "MemoryError" in done.stderr
