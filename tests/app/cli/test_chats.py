"""A chat made headless, read back headless: `chats`, `export`, `import`, and `ask`'s
system prompt, parameters and --regenerate (app/cli/chats.py, app/cli/ask.py)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from app.store import Store
from routing.context_window import memory_bytes, ollama_window
from tests.app.cli.helpers import sightline
from tests.conftest import SightlineHome
from tests.servers.ollama import FakeOllama, Reply

MODEL = "ollama:llama3.2:3b"


def ask(home: SightlineHome, *args: str) -> str:
    """Run `ask --json`, returning the conversation id from its done line."""
    done = sightline(home, "ask", "--json", "--model", MODEL, *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])["conversation"]


def test_ask_keeps_its_settings_with_a_new_chat_and_overrides_an_existing_one(
    home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    cid = ask(home, "--system", "Answer in one word.", "--temperature", "0.5", "colour?")
    ask(home, "--conversation", cid, "--max-tokens", "12", "another?")
    ask(home, "--conversation", cid, "and one more?")
    first, second, third = fake_ollama.chat_requests()
    # Ollama is always told the window to load: the trained length, within this memory.
    window = {"num_ctx": ollama_window(131072, memory_bytes())}
    assert first["messages"][0] == {"role": "system", "content": "Answer in one word."}
    assert first["options"] == {"temperature": 0.5} | window
    assert second["messages"][0]["content"] == "Answer in one word."
    assert second["options"] == {"temperature": 0.5, "num_predict": 12} | window
    assert third["options"] == {"temperature": 0.5} | window  # the override was for that turn


def test_the_default_system_prompt_from_the_config(
    home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    home.config.write_text('system_prompt = "You are a pirate."\n' + home.config.read_text())
    ask(home, "hello")
    assert fake_ollama.chat_requests()[0]["messages"][0] == {
        "role": "system",
        "content": "You are a pirate.",
    }


def test_bad_parameters_are_one_clear_line_and_nothing_is_sent(
    home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    for flag, value, words in [
        ("--temperature", "hot", "temperature must be a number from 0 to 2"),
        ("--temperature", "3", "from 0 to 2"),
        ("--max-tokens", "-5", "maximum answer length must be a whole number"),
    ]:
        done = sightline(home, "ask", "--model", MODEL, flag, value, "hi")
        assert done.returncode == 1
        assert done.stderr.count("\n") == 1 and words in done.stderr, done.stderr
    assert fake_ollama.chat_requests() == []


def test_regenerate_makes_a_new_version_of_the_last_answer(
    home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue(Reply(text="Red."), Reply(text="Blue."), Reply(text="Green."))
    cid = ask(home, "name a colour")
    ask(home, "--conversation", cid, "--regenerate")
    done = sightline(
        home, "ask", "--conversation", cid, "--regenerate", "--model", "ollama:llava:7b"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Green.\n"
    requests = fake_ollama.chat_requests()
    assert [r["model"] for r in requests] == ["llama3.2:3b", "llama3.2:3b", "llava:7b"]
    assert all(r["messages"] == requests[0]["messages"] for r in requests)
    with Store.open(home.data) as store:
        shown = store.items(cid)
        assert [s.item.text for s in shown] == ["name a colour", "Green."]
        assert len(shown[1].versions) == 3
        # --model was for that answer only: the chat keeps the model it had.
        summary = store.conversations.get(cid)
        assert summary is not None and summary.model == MODEL
    fake_ollama.enqueue(Reply(text="Yellow."))
    ask(home, "--conversation", cid, "--regenerate")
    assert fake_ollama.chat_requests()[-1]["model"] == "llama3.2:3b"


def test_regenerate_needs_a_conversation_and_no_new_words(home: SightlineHome) -> None:
    done = sightline(home, "ask", "--regenerate")
    assert done.returncode == 1 and "add --conversation ID" in done.stderr
    done = sightline(home, "ask", "--regenerate", "--conversation", "x", "new words")
    assert done.returncode == 1 and "leave out the prompt" in done.stderr


def test_chats_lists_id_title_updated_and_model(
    home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    older = ask(home, "**First** chat\nwith two lines")
    newer = ask(home, "Second chat")
    done = sightline(home, "chats", "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert [r["id"] for r in rows] == [newer, older]
    assert rows[0]["model"] == MODEL and rows[0]["title"] == "Second chat"
    assert isinstance(rows[0]["updated"], float)
    plain = sightline(home, "chats").stdout.splitlines()
    assert plain[0].startswith(f"{newer}\t") and plain[0].endswith("\tSecond chat")
    assert len(plain) == 2  # a title of two lines is shown on one


def test_export_json_has_every_version_marking_the_shown_one(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    fake_ollama.enqueue(Reply(text="Red."), Reply(text="Blue."))
    cid = ask(home, "name a colour")
    ask(home, "--conversation", cid, "--regenerate")
    done = sightline(home, "export", cid, "--format", "json")
    assert done.returncode == 0, done.stderr
    items = json.loads(done.stdout)["items"]
    assert [(i["text"] if i["type"] == "notice" else i["parts"]) for i in items] == [
        [{"type": "text", "text": "name a colour"}],
        [{"type": "text", "text": "Red."}],
        [{"type": "text", "text": "Blue."}],
    ]
    question, red, blue = items
    assert red["parent"] == blue["parent"] == question["id"]
    assert [i["shown"] for i in items] == [True, False, True]
    markdown = sightline(home, "export", cid).stdout
    assert "Blue." in markdown and "Red." not in markdown  # the branch shown
    out = tmp_path / "chat.json"
    done = sightline(home, "export", cid, "--format", "json", "-o", str(out))
    assert done.returncode == 0 and str(out) in done.stderr
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600
    # Import: a new chat with both versions, the same one shown.
    done = sightline(home, "import", str(out))
    assert done.returncode == 0, done.stderr
    copy = done.stdout.strip()
    assert copy != cid
    with Store.open(home.data) as store:
        shown = store.items(copy)
        assert [s.item.text for s in shown] == ["name a colour", "Blue."]
        assert len(shown[1].versions) == 2
        store.branches.show_version(shown[1].versions[0])
        assert [s.item.text for s in store.items(copy)] == ["name a colour", "Red."]


def test_export_of_no_such_chat_and_import_of_a_bad_file(
    home: SightlineHome, tmp_path: Path
) -> None:
    done = sightline(home, "export", "nope")
    assert done.returncode == 1 and "no conversation 'nope'" in done.stderr
    assert "sightline chats" in done.stderr
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe not json")
    done = sightline(home, "import", str(bad))
    assert done.returncode == 1 and "not a Sightline export" in done.stderr
    assert "Traceback" not in done.stderr
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    done = sightline(home, "import", str(deep))
    assert done.returncode == 1 and "Traceback" not in done.stderr
