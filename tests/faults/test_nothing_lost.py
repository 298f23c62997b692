"""Nothing lost: a poisoned conversation keeps working, and a full disk ends a turn cleanly.

Whole `sightline ask` processes with their memory capped (tests/faults/cli.py).
A full disk is made real with RLIMIT_FSIZE: past it the kernel refuses every
write that would grow a file (Python ignores the SIGXFSZ that comes with it), as
a full disk refuses them, so SQLite's own error path is what runs.
"""

from __future__ import annotations

import json
import resource
import subprocess
from typing import Any

from app.store import Store
from routing.transcript import Message, MessageStatus, ToolCall
from routing.wires.payload import TOO_DEEP
from tests.conftest import SightlineHome
from tests.faults.cli import NO_KEYRING, ROOT, command, one_clear_line, sightline
from tests.servers.ollama import FakeOllama, Reply

MODEL = "ollama:llama3.2:3b"


def _nested(depth: int) -> dict[str, Any]:
    deep: dict[str, Any] = {}
    inner = deep
    for _ in range(depth):
        inner["a"] = {}
        inner = inner["a"]
    return deep


def _only_chat(home: SightlineHome) -> str:
    with Store.open(home.data) as store:
        [chat] = store.conversations.list()
        return chat.id


def test_tool_arguments_nested_600_deep_are_bounded_as_they_arrive(
    home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue(
        Reply(tool_calls=[{"name": "read_file", "arguments": _nested(600)}]), Reply(text="ok")
    )
    first = sightline(home.env(), "ask", "--model", MODEL, "hi")
    assert first.returncode == 0, first.stderr
    chat = _only_chat(home)
    again = sightline(home.env(), "ask", "--conversation", chat, "--model", MODEL, "again")
    assert (again.returncode, again.stdout) == (0, "You said: again\n"), again.stderr
    with Store.open(home.data) as store:
        [call] = [c for m in store.messages(chat) for c in m.tool_calls]
    assert dict(call.arguments) == {"_raw": TOO_DEEP}


def test_a_conversation_poisoned_before_the_bound_still_answers(
    home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    # Stored as an older Sightline would have stored it: the call as the model sent it.
    with Store.open(home.data) as store:
        chat = store.conversations.create()
        store.add_message(chat, Message("user", ()))
        call = ToolCall("c1", "read_file", _nested(600))
        store.add_message(chat, Message("assistant", (call,), model=MODEL))
    done = sightline(home.env(), "ask", "--conversation", chat, "--model", MODEL, "still there?")
    assert (done.returncode, done.stdout) == (0, "You said: still there?\n"), done.stderr
    sent = fake_ollama.chat_requests()[-1]["messages"]
    [assistant] = [m for m in sent if m.get("tool_calls")]
    assert assistant["tool_calls"][0]["function"]["arguments"] == {"_raw": TOO_DEEP}


def _run_with_file_limit(
    home: SightlineHome, limit: int, *args: str
) -> subprocess.CompletedProcess[str]:
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    return subprocess.run(
        command(*args),
        env=home.env() | NO_KEYRING,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=cap,
    )


def _a_long_answer_past_the_disk(
    home: SightlineHome, fake_ollama: FakeOllama, text: str, *flags: str
) -> tuple[str, subprocess.CompletedProcess[str]]:
    """A chat's second turn (`ask FLAGS ... TEXT`) streaming a long answer with room on
    disk for only 200 kB more: the chat's id and how the run ended."""
    assert sightline(home.env(), "ask", "--model", MODEL, "first").returncode == 0
    chat = _only_chat(home)
    size = sum(p.stat().st_size for p in home.data.glob("sightline.db*"))
    fake_ollama.enqueue(Reply(text="word " * 200_000, chunk_chars=500))
    done = _run_with_file_limit(
        home, size + 200_000, "ask", *flags, "--conversation", chat, "--model", MODEL, text
    )
    return chat, done


def test_a_full_disk_mid_answer_ends_the_turn_and_keeps_what_was_written(
    home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    chat, done = _a_long_answer_past_the_disk(home, fake_ollama, "tell me a lot")
    line = one_clear_line(done)
    assert "could not save this turn" in line and "free some disk space" in line
    assert done.stdout.startswith("word word")  # it streamed until the disk was full
    with Store.open(home.data) as store:  # the next start folds what was written
        items = store.messages(chat)
    assert [m.text for m in items[:3]] == ["first", "You said: first", "tell me a lot"]
    partial = items[3]
    assert partial.status == MessageStatus.INTERRUPTED
    assert partial.text.startswith("word ") and 0 < len(partial.text) < len("word " * 200_000)


def test_a_full_disk_in_json_ends_with_an_error_event(
    home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    _, done = _a_long_answer_past_the_disk(home, fake_ollama, "more", "--json")
    last = json.loads(done.stdout.splitlines()[-1])
    assert last["type"] == "error" and "could not save this turn" in last["message"]
