"""Hostile files as `sightline ask` meets them: one clear line, bounded memory, nothing lost.

A device that never ends, a FIFO with no writer, a folder, a sparse 2 GB file, named
as an attachment, as `--mcp-config` (or the config's `mcp_config`) or in a model's
`read_file` call; a GIF of 40 frames of 8000×8000; PDFs whose pages measure 14,400
and 200,000 points. Every run is a real process with its memory capped (RLIMIT_AS).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from subprocess import CompletedProcess

import pytest

from app.store import Store
from tests.conftest import SightlineHome
from tests.faults.cli import one_clear_line, sightline
from tests.faults.conftest import describe
from tests.gifs import animated_gif
from tests.pdfs import text_pdf
from tests.servers.ollama import FakeOllama, Reply

BLIND = "ollama:llama3.2:3b"  # takes tools
SEEING = "ollama:llava:7b"
SEEING_WITH_TOOLS = "ollama:qwen2.5vl:3b"  # rendered pages reach it as they are
GIGABYTES = 2 * 10**9
# What each hostile path is, and the words that say so.
HOSTILE = {
    "zero": "/dev/zero is a device",
    "urandom": "/dev/urandom is a device",
    "fifo": "pipe.png is a pipe (FIFO)",
    "folder": "folder.png is a folder",
    "sparse": "huge.png is too large (2.0 GB)",
}


def hostile(kind: str, folder: Path) -> Path:
    """A path of that kind (a FIFO, folder or sparse file made in `folder`)."""
    if kind in ("zero", "urandom"):
        return Path("/dev") / kind
    if kind == "fifo":
        os.mkfifo(folder / "pipe.png")
        return folder / "pipe.png"
    if kind == "folder":
        (folder / "folder.png").mkdir()
        return folder / "folder.png"
    with (folder / "huge.png").open("wb") as handle:
        handle.truncate(GIGABYTES)  # sparse: nothing is written
    return folder / "huge.png"


def sparse_pdf(path: Path) -> Path:
    with path.open("wb") as handle:
        handle.write(b"%PDF-1.7\n")
        handle.truncate(GIGABYTES)
    return path


def transcript(home: SightlineHome) -> list[tuple[str, ...]]:
    with Store.open(home.data) as store:
        [conversation] = store.conversations.list()
        return [describe(item) for item in store.items(conversation.id)]


def conversation_id(home: SightlineHome) -> str:
    with Store.open(home.data) as store:
        [conversation] = store.conversations.list()
        return conversation.id


def says_in_one_line(done: CompletedProcess[str], says: str) -> None:
    line = one_clear_line(done)  # a non-zero exit, no traceback, one `sightline: ` line
    assert says in line, line


# -- attachments ---------------------------------------------------------------------


@pytest.mark.parametrize("kind", [*HOSTILE, "sparse pdf"])
def test_attaching_a_hostile_file_is_one_clear_line_and_the_chat_keeps_everything(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path, kind: str
) -> None:
    first = sightline(home.env(), "ask", "--model", BLIND, "hello")
    assert first.returncode == 0, first.stderr
    before = transcript(home)
    if kind == "sparse pdf":
        path, says = sparse_pdf(tmp_path / "huge.pdf"), "huge.pdf is too large (2.0 GB); a PDF"
    else:
        path, says = hostile(kind, tmp_path), HOSTILE[kind]
    started = time.monotonic()
    done = sightline(
        home.env(), "ask", "--conversation", conversation_id(home), "--model", BLIND,
        "--attach", str(path), "what is in it?", timeout=30,
    )  # fmt: skip
    assert time.monotonic() - started < 20
    says_in_one_line(done, says)
    assert transcript(home) == before  # refused before anything was kept or sent
    assert len(fake_ollama.chat_requests()) == 1


# -- MCP settings ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", [*HOSTILE, "too big"])
def test_a_hostile_mcp_config_is_one_clear_line(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path, kind: str
) -> None:
    if kind == "too big":  # a real file, just more than any settings file is
        path = tmp_path / "mcp.json"
        path.write_bytes(b'{"mcpServers": {}}' + b" " * 5_000_000)
        says = "mcp.json is too large (5 MB); a JSON file of MCP servers may be at most 4 MB"
    else:
        path, says = hostile(kind, tmp_path), HOSTILE[kind]
    done = sightline(
        home.env(), "ask", "--allow-tools", "--mcp-config", str(path), "--model", BLIND, "hi",
        timeout=30,
    )  # fmt: skip
    says_in_one_line(done, says)
    assert fake_ollama.chat_requests() == []


def test_the_configs_mcp_config_naming_a_fifo_is_one_clear_line(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    pipe = hostile("fifo", tmp_path)
    settings = home.config.read_text(encoding="utf-8")  # above the first [[providers]]
    home.config.write_text(f"mcp_config = {json.dumps(str(pipe))}\n{settings}", encoding="utf-8")
    done = sightline(home.env(), "ask", "--model", BLIND, "hi", timeout=30)
    says_in_one_line(done, HOSTILE["fifo"])


# -- read_file -----------------------------------------------------------------------------


def test_read_file_of_hostile_files_answers_each_call_and_the_turn_goes_on(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    paths = {kind: hostile(kind, tmp_path) for kind in HOSTILE}
    paths["sparse pdf"] = sparse_pdf(tmp_path / "huge.pdf")
    with (tmp_path / "huge.txt").open("wb") as handle:
        handle.truncate(GIGABYTES)
    paths["sparse text"] = tmp_path / "huge.txt"
    (tmp_path / "huge-page.pdf").write_bytes(text_pdf([""], width=200_000, height=200_000))
    paths["huge page"] = tmp_path / "huge-page.pdf"
    (tmp_path / "big-page.pdf").write_bytes(text_pdf([""], width=14_400, height=14_400))
    paths["big page"] = tmp_path / "big-page.pdf"
    calls = [
        {"id": kind, "name": "read_file", "arguments": {"path": str(path)}}
        for kind, path in paths.items()
    ]
    fake_ollama.enqueue(Reply(tool_calls=calls), Reply(text="Nothing there I can use."))
    done = sightline(
        home.env(),
        "ask",
        "--json",
        "--allow-tools",
        "--model",
        SEEING_WITH_TOOLS,
        "read them",
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    results = {e["id"]: e for e in events if e["type"] == "tool_result"}
    says = {
        "zero": "not a regular file",
        "urandom": "not a regular file",
        "fifo": "not a regular file",
        "folder": "is a folder",
        "sparse": "huge.png is too large (2.0 GB); a picture may be at most 50 MB",
        "sparse pdf": "huge.pdf is too large (2.0 GB)",
        "huge page": "too large to render at a readable size",
    }
    for kind, words in says.items():
        assert results[kind]["is_error"] and words in results[kind]["text"], results[kind]
    # The 2 GB file of zeros is read no further than what could be sent.
    assert "binary file (2000000000 bytes)" in results["sparse text"]["text"]
    # A 14,400-point page is rendered smaller, within the pixel budget, and sent.
    assert not results["big page"]["is_error"] and results["big page"]["pictures"] == 1
    assert events[-1]["type"] == "done"
    rows = transcript(home)
    assert rows[0] == ("user", "read them", "complete")
    assert rows[-1] == ("assistant", "Nothing there I can use.", "complete")


# -- pictures -------------------------------------------------------------------------------


def test_a_gif_of_forty_8000_pixel_frames_attaches_in_seconds_in_bounded_memory(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    path = tmp_path / "huge.gif"
    path.write_bytes(animated_gif(8000, 8000, 40))
    started = time.monotonic()
    # Walking every frame took 25 s and 800 MB; the first frame alone fits in far less.
    done = sightline(
        home.env(), "ask", "--model", SEEING, "--attach", str(path), "what is it?",
        memory_cap=640 << 20,
    )  # fmt: skip
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == "You said: what is it? (I see 1 pictures)\n"
    assert took < 12, took
    [sent] = fake_ollama.chat_requests()[0]["messages"][-1]["images"]
    assert len(sent) < 1_400_000  # the first frame, clamped: base64 of at most 1 MB


# -- PDFs -----------------------------------------------------------------------------------


def test_a_pdf_with_a_14400_point_page_is_rendered_within_the_budget(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    path = tmp_path / "poster.pdf"
    path.write_bytes(text_pdf([""], width=14_400, height=14_400))  # 484 MP at 110 DPI
    done = sightline(home.env(), "ask", "--model", SEEING, "--attach", str(path), "read it")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.endswith("(I see 1 pictures)\n")
    assert "[Attached poster.pdf: page 1 of 1]\nNo text could be extracted" in done.stdout


def test_a_pdf_whose_page_cant_be_rendered_is_a_line_and_the_chat_goes_on(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    path = tmp_path / "report.pdf"
    path.write_bytes(text_pdf([""], width=200_000, height=200_000))
    first = sightline(home.env(), "ask", "--model", SEEING, "--attach", str(path), "read it")
    assert first.returncode == 0, first.stderr[-2000:]
    assert "[Attached report.pdf, which could not be read: " in first.stdout
    assert "too large to render at a readable size" in first.stdout
    # The PDF stays in the chat and is read again for every later request.
    again = sightline(
        home.env(), "ask", "--conversation", conversation_id(home), "--model", SEEING, "and now?"
    )
    assert again.returncode == 0, again.stderr[-2000:]
    assert again.stdout == "You said: and now?\n"
    rows = transcript(home)
    assert [row[0] for row in rows] == ["user", "assistant", "user", "assistant"]
    assert rows[0][1] == "read it" and rows[2] == ("user", "and now?", "complete")
