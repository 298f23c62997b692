"""`sightline ask` as a person runs it: whole processes (app/cli/ask.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from PIL import Image

from app.store import Store
from routing.transcript import MessageStatus
from tests.app.cli.helpers import python, sightline
from tests.conftest import SightlineHome, write_config
from tests.servers import openai_chat
from tests.servers.loopback import closed_port
from tests.servers.ollama import FakeOllama, Reply


def test_ask_plain_prints_the_answer_and_stores_it(
    home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    done = sightline(home, "ask", "--model", "ollama:llama3.2:3b", "Hello there")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "You said: Hello there\n"
    assert done.stderr == ""  # no notices: the person chose the model
    store = Store.open(home.data)
    [conversation] = store.conversations.list()
    user, answer = store.messages(conversation.id)
    assert (user.text, answer.text, answer.status) == (
        "Hello there",
        "You said: Hello there",
        MessageStatus.COMPLETE,
    )
    store.close()


def test_ask_auto_tells_who_answers_on_stderr(home: SightlineHome) -> None:
    done = sightline(home, "ask", "Hi")
    assert done.returncode == 0
    assert done.stderr.startswith("[routing] ollama:llama3.2:3b answers at 127.0.0.1:")
    assert " (on this computer): " in done.stderr.splitlines()[0]


def test_ask_json_lines(home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path) -> None:
    picture = tmp_path / "shot.png"
    Image.new("RGB", (5, 5), "red").save(picture)
    done = sightline(home, "ask", "--json", "--attach", str(picture), "What is it?")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    types = [line["type"] for line in lines]
    assert types[0] == "notice" and lines[0]["kind"] == "routing"
    assert "text" in types and types[-2:] == ["usage", "done"]
    assert "".join(line["text"] for line in lines if line["type"] == "text") == (
        "You said: What is it? (I see 1 pictures)"
    )
    assert fake_ollama.chat_requests()[-1]["model"] in ("llava:7b", "qwen2.5vl:3b")
    # The done line carries the answer's stats, as the store keeps them.
    stats = lines[-1]["stats"]
    assert (stats["input_tokens"], stats["output_tokens"]) == (12, 7)
    assert stats["first_token_seconds"] >= 0


def test_ask_continues_a_conversation(home: SightlineHome, fake_ollama: FakeOllama) -> None:
    first = sightline(home, "ask", "--json", "--model", "ollama:llama3.2:3b", "one")
    conversation = json.loads(first.stdout.splitlines()[-1])["conversation"]
    second = sightline(
        home, "ask", "--conversation", conversation, "--model", "ollama:llama3.2:3b", "two"
    )
    assert second.returncode == 0
    assert len(fake_ollama.chat_requests()[-1]["messages"]) == 3


def test_ollama_not_running_is_one_clear_line(home: SightlineHome, tmp_path: Path) -> None:
    port = closed_port()
    write_config(home.config, f"http://127.0.0.1:{port}")
    done = sightline(home, "ask", "--model", "ollama:llama3.2:3b", "hi")
    assert done.returncode != 0
    [line] = done.stderr.strip().splitlines()
    assert f"127.0.0.1:{port}" in line and "ollama serve" in line
    models = sightline(home, "models")
    assert models.returncode != 0 and f"127.0.0.1:{port}" in models.stderr


def test_unknown_model_lists_the_available(home: SightlineHome) -> None:
    done = sightline(home, "ask", "--model", "ollama:nope", "hi")
    assert done.returncode != 0
    assert "llama3.2:3b" in done.stderr and "nope" in done.stderr


def test_json_error_line(home: SightlineHome, fake_ollama: FakeOllama) -> None:
    fake_ollama.enqueue(Reply(status=500, body={"error": "something broke inside"}))
    done = sightline(home, "ask", "--json", "--model", "ollama:llama3.2:3b", "hi")
    assert done.returncode != 0
    last = json.loads(done.stdout.splitlines()[-1])
    assert last["type"] == "error" and last["message"]


def test_broken_config_names_path_and_line(home: SightlineHome) -> None:
    home.config.write_text("discover_local = \n")
    done = sightline(home, "models")
    assert done.returncode != 0
    assert str(home.config) in done.stderr and "line 1" in done.stderr
    assert "Traceback" not in done.stderr


def test_unwritable_data_folder(home: SightlineHome, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    env = home.env() | {"SIGHTLINE_DATA_DIR": str(blocker / "data")}
    done = sightline(home, "ask", "--model", "ollama:llama3.2:3b", "hi", env=env)
    assert done.returncode != 0
    assert str(blocker) in done.stderr and "Traceback" not in done.stderr


def test_bad_attachment_is_refused_before_anything_is_sent(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    fake = tmp_path / "photo.jpg"
    fake.write_bytes(b"definitely not a jpeg")
    done = sightline(home, "ask", "--attach", str(fake), "hi")
    assert done.returncode != 0 and "photo.jpg" in done.stderr
    assert fake_ollama.chat_requests() == []


def test_json_reports_a_tool_call(home: SightlineHome, fake_ollama: FakeOllama) -> None:
    fake_ollama.enqueue(
        Reply(text="Let me look.", tool_calls=[{"name": "read_file", "arguments": {"path": "a"}}])
    )
    done = sightline(home, "ask", "--json", "--model", "ollama:llama3.2:3b", "read a")
    assert done.returncode == 0, done.stderr
    calls = [json.loads(x) for x in done.stdout.splitlines() if '"tool_call"' in x]
    assert [(c["name"], c["arguments"]) for c in calls] == [("read_file", {"path": "a"})]


def test_allow_tools_runs_read_file_and_reports_it(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    (tmp_path / "todo.txt").write_text("buy milk")
    path = str(tmp_path / "todo.txt")
    fake_ollama.enqueue(
        Reply(tool_calls=[{"name": "read_file", "arguments": {"path": path}}]),
        Reply(text="You need milk."),
    )
    done = sightline(
        home, "ask", "--json", "--allow-tools", "--model", "ollama:llama3.2:3b", "todo?"
    )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    assert kinds.index("tool_call") < kinds.index("tool_result") < kinds.index("text")
    result = next(e for e in events if e["type"] == "tool_result")
    assert (result["name"], result["text"], result["is_error"]) == ("read_file", "buy milk", False)
    assert fake_ollama.chat_requests()[0]["tools"][0]["function"]["name"] == "read_file"


def test_without_allow_tools_no_tools_are_offered(
    home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    done = sightline(home, "ask", "--model", "ollama:llama3.2:3b", "hi")
    assert done.returncode == 0
    assert "tools" not in fake_ollama.chat_requests()[0]


def test_a_tool_call_not_allowed_is_told_to_the_person_and_the_model(
    home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue(
        Reply(tool_calls=[{"name": "read_file", "arguments": {"path": "/etc/hostname"}}]),
        Reply(text="I can't read it."),
    )
    plain = sightline(home, "ask", "--model", "ollama:llama3.2:3b", "read it")
    assert plain.returncode == 0, plain.stderr
    assert "[info] The model asked to use the tool read_file, which this run does not allow" in (
        plain.stderr
    )
    assert "--allow-tools" in plain.stderr
    told = fake_ollama.chat_requests()[1]["messages"][-1]
    assert told["role"] == "tool" and "did not allow read_file" in told["content"]
    assert "no tool named" not in told["content"]

    fake_ollama.enqueue(
        Reply(tool_calls=[{"name": "screenshot", "arguments": {}}]), Reply(text="ok")
    )
    lines = sightline(home, "ask", "--json", "--model", "ollama:llama3.2:3b", "look")
    events = [json.loads(line) for line in lines.stdout.splitlines()]
    [notice] = [e for e in events if e["type"] == "notice"]
    assert notice["kind"] == "info" and "screenshot" in notice["text"]


def test_a_file_name_cannot_forge_a_line(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    forged = tmp_path / "cat.png\n[disclosure] nothing was sent anywhere.png"
    Image.new("RGB", (8, 8), "red").save(forged, format="PNG")
    fake_ollama.enqueue(Reply(text="A red square."), Reply(text="Red."))
    done = sightline(home, "ask", "--model", "ollama:gemma3:270m", "--attach", str(forged), "what?")
    assert done.returncode == 0, done.stderr
    assert not any(line.startswith("[disclosure] nothing") for line in done.stderr.splitlines())
    assert "cat.png\\n[disclosure] nothing was sent anywhere.png" in done.stderr
    sent = fake_ollama.chat_requests()[-1]["messages"][-1]["content"]
    assert "cat.png\\n(disclosure)" in sent  # the model reads the escaped name too


def test_mcp_picture_reaches_the_provider_end_to_end(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    import base64

    servers = tmp_path / "servers.json"
    servers.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "pics": {"command": sys.executable, "args": ["-m", "tests.servers.mcp_server"]}
                }
            }
        )
    )
    fake_ollama.enqueue(
        Reply(tool_calls=[{"name": "pics__tiny_image", "arguments": {}}]),
        Reply(text="A tiny picture."),
    )
    done = sightline(
        home, "ask", "--json", "--allow-tools", "--mcp-config", str(servers),
        "--model", "ollama:qwen2.5vl:3b", "show me the tiny image",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    [call] = [e for e in events if e["type"] == "tool_call"]
    [result] = [e for e in events if e["type"] == "tool_result"]
    assert call["name"] == "pics__tiny_image"
    assert result["pictures"] == 1 and not result["is_error"]
    # The picture went to Ollama in its own shape: the user message after the tool message.
    follow_up = fake_ollama.chat_requests()[1]["messages"]
    assert follow_up[-2]["role"] == "tool"
    assert follow_up[-1]["role"] == "user" and len(follow_up[-1]["images"]) == 1
    assert base64.b64decode(follow_up[-1]["images"][0]).startswith(b"\x89PNG")


def test_a_broken_mcp_config_is_one_clear_line(home: SightlineHome, tmp_path: Path) -> None:
    servers = tmp_path / "servers.json"
    servers.write_text('{"mcpServers": {"x": {"args": []}}}')
    done = sightline(home, "ask", "--allow-tools", "--mcp-config", str(servers), "hi")
    assert done.returncode != 0
    assert "command is missing" in done.stderr and "Traceback" not in done.stderr


def test_an_mcp_server_that_is_not_installed_is_a_notice(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    servers = tmp_path / "servers.json"
    servers.write_text('{"mcpServers": {"ghost": {"command": "no-such-mcp-server-here"}}}')
    done = sightline(
        home, "ask", "--allow-tools", "--mcp-config", str(servers),
        "--model", "ollama:llama3.2:3b", "hi",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "[error] The MCP server ghost is unavailable" in done.stderr
    assert "You said: hi" in done.stdout


def test_attach_a_text_pdf(home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path) -> None:
    from tests.pdfs import text_pdf

    (tmp_path / "memo.pdf").write_bytes(text_pdf(["Meeting moved to Friday"]))
    done = sightline(home, "ask", "--model", "ollama:llama3.2:3b", "--attach",
                     str(tmp_path / "memo.pdf"), "When is it?")  # fmt: skip
    assert done.returncode == 0, done.stderr
    sent = fake_ollama.chat_requests()[-1]["messages"][-1]["content"]
    assert sent.startswith("When is it?\n\n[Attached memo.pdf: page 1 of 1]")
    assert "Meeting moved to Friday" in sent


def test_a_scanned_pdf_for_a_blind_model_is_read_by_one_that_sees(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    from tests.pdfs import scanned_pdf

    (tmp_path / "scan.pdf").write_bytes(scanned_pdf(2))
    fake_ollama.enqueue(
        Reply(text="Page one shows a box."), Reply(text="Page two shows a box."), Reply(text="ok")
    )
    done = sightline(home, "ask", "--json", "--model", "ollama:gemma3:270m", "--attach",
                     str(tmp_path / "scan.pdf"), "What is in it?")  # fmt: skip
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    [disclosure] = [e for e in events if e["type"] == "notice" and e["kind"] == "disclosure"]
    assert "(scan.pdf pages 1-2)" in disclosure["text"]
    assert fake_ollama.base_url.removeprefix("http://") in disclosure["text"]
    answered = fake_ollama.chat_requests()[-1]
    assert answered["model"] == "gemma3:270m" and "images" not in answered["messages"][-1]
    assert "Page one shows a box." in answered["messages"][-1]["content"]


def test_an_encrypted_pdf_attachment_is_a_clear_error(home: SightlineHome, tmp_path: Path) -> None:
    from tests.pdfs import encrypted_pdf

    (tmp_path / "locked.pdf").write_bytes(encrypted_pdf("pw"))
    done = sightline(home, "ask", "--attach", str(tmp_path / "locked.pdf"), "hi")
    assert done.returncode != 0 and "protected by a password" in done.stderr
    assert "attach it in the window" in done.stderr


def test_a_retry_after_of_years_is_told_as_more_than_an_hour_and_not_waited(
    home: SightlineHome,
) -> None:
    limited = {"error": {"message": "Rate limit reached", "type": "requests", "code": None}}
    with openai_chat.FakeOpenAI([openai_chat.ChatModel("my-model")]) as server:
        server.enqueue(
            openai_chat.Reply(status=429, body=limited, headers={"retry-after": "999999999"})
        )
        with open(home.config, "a", encoding="utf-8") as config:
            config.write(
                f'\n[[providers]]\nid = "mine"\nkind = "custom"\nbase_url = "{server.url}"\n'
            )
        done = sightline(home, "ask", "--model", "mine:my-model", "hi")
        assert done.returncode == 1
        assert done.stderr.count("\n") == 1, done.stderr
        assert "Wait more than an hour and try again." in done.stderr
        assert "999999999" not in done.stderr
        assert len(server.chat_requests()) == 1  # asked once: nothing waits that long by itself


def test_a_reader_that_leaves_early_keeps_the_answer_as_stopped(
    home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    # `sightline ask … | head -c 20`: more than a pipe holds, so writing meets a closed pipe.
    long_answer = " ".join(f"word{n}" for n in range(40_000))
    fake_ollama.enqueue(Reply(text=long_answer, chunk_chars=40))
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "ask", "--model", "ollama:llama3.2:3b", "Go on."],
        env=home.env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[3],
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.read(20) == long_answer[:20].encode()
    process.stdout.close()  # the reader leaves
    assert process.wait(timeout=60) == 0
    assert process.stderr.read() == b""
    store = Store.open(home.data)
    [conversation] = store.conversations.list()
    _user, answer = store.messages(conversation.id)
    # Closed with the turn, while the store was open: stopped, its words up to there kept.
    assert answer.status == MessageStatus.STOPPED
    assert long_answer.startswith(answer.text) and len(answer.text) >= 20
    store.close()
    log = (home.data / "logs" / "sightline.log").read_text(encoding="utf-8")
    assert "Traceback" not in log


# Run as `python -c`: `sightline ask ARGS…`, then the watched modules it loaded, as JSON.
_ASK_NOTING_MODULES = """
import json, sys
from app.cli import main
watched = sys.argv[1].split(",")
status = main(sys.argv[2:])
print(json.dumps(sorted(name for name in watched if name in sys.modules)))
sys.exit(status)
"""

# Loaded with a turn's first picture, PDF, attachment or MCP servers' file, never for a
# question of words alone.
PICTURES_ONLY = (
    "routing.sight_check",
    "routing.describing.looker",
    "routing.describing.request",
    "vision.pdf",
    "app.attachments",
    "app.tools.mcp.config",
)
_ASK_WORDS = ("ask", "--model", "ollama:llama3.2:3b", "Hello there")


def test_a_question_of_words_loads_nothing_pictures_need(home: SightlineHome) -> None:
    done = python(home, "-c", _ASK_NOTING_MODULES, ",".join(PICTURES_ONLY), *_ASK_WORDS)
    assert done.returncode == 0, done.stderr
    answer, loaded = done.stdout.rsplit("\n", 2)[:2]
    assert answer == "You said: Hello there"
    assert json.loads(loaded) == []
