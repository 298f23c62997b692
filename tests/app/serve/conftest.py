"""`sightline serve` as a person starts it: a whole process on loopback port 0, the loopback
Ollama behind it (tests/conftest.py's `home`), its printed addresses read, Ctrl+C at the end."""

from __future__ import annotations

import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import SightlineHome

ROOT = Path(__file__).resolve().parents[3]


@dataclass
class Serving:
    """A running `sightline serve`: where each API is, its token, and its process."""

    openai_url: str
    ollama_url: str
    token: str
    token_file: Path
    process: subprocess.Popen[str]
    lines: list[str] = field(default_factory=list)

    @property
    def auth(self) -> dict[str, str]:
        """The header every request must carry."""
        return {"Authorization": f"Bearer {self.token}"}

    def stop(self) -> tuple[int, str]:
        """Ctrl+C, as a person stops it: its exit status and what it said on stderr."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError("sightline serve did not stop on Ctrl+C") from None
        assert self.process.stderr is not None
        return self.process.returncode, self.process.stderr.read()


def start(home: SightlineHome, *args: str) -> subprocess.Popen[str]:
    """`sightline serve ARGS…` started (not waited for)."""
    return subprocess.Popen(
        [sys.executable, "-m", "app", "serve", *args],
        env=home.env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def printed_lines(process: subprocess.Popen[str], count: int, timeout: float = 60) -> list[str]:
    """The first `count` lines it prints on stdout (fails if it ends or waits too long).

    Read by a thread: a pipe read in text mode buffers ahead, so `select` on it can't
    tell a line is waiting."""
    assert process.stdout is not None
    stdout = process.stdout
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for _ in range(count):
            lines.put(stdout.readline())

    threading.Thread(target=read, daemon=True).start()
    got: list[str] = []
    deadline = time.monotonic() + timeout
    while len(got) < count:
        try:
            line = lines.get(timeout=max(deadline - time.monotonic(), 0.01))
        except queue.Empty:
            raise AssertionError(f"sightline serve printed only {got} in {timeout} s") from None
        if not line:
            _, err = process.communicate(timeout=10)
            raise AssertionError(f"sightline serve ended ({process.returncode}): {err}")
        got.append(line.rstrip("\n"))
    return got


def serving_from(process: subprocess.Popen[str]) -> Serving:
    """What the three lines it prints say: the two base URLs and where the token is."""
    lines = printed_lines(process, 3)
    openai_line, ollama_line, token_line = lines
    assert openai_line.startswith("OpenAI API: http://") and openai_line.endswith("/v1")
    assert ollama_line.startswith("Ollama API: http://")
    path = Path(token_line.removeprefix("Token: in ").split(" (")[0])
    token = path.read_text(encoding="utf-8").strip()
    return Serving(
        openai_line.removeprefix("OpenAI API: "),
        ollama_line.removeprefix("Ollama API: "),
        token,
        path,
        process,
        lines,
    )


@contextmanager
def running(home: SightlineHome, *args: str) -> Iterator[Serving]:
    """`sightline serve --port 0 ARGS…` over the loopback Ollama, stopped with Ctrl+C after."""
    process = start(home, "--port", "0", *args)
    try:
        served = serving_from(process)
        yield served
        status, err = served.stop()
        assert status == 0, err
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def serving(home: SightlineHome) -> Iterator[Serving]:
    """`sightline serve --port 0` over the loopback Ollama, stopped with Ctrl+C afterwards."""
    with running(home) as served:
        yield served


@pytest.fixture
def serving_tools(home: SightlineHome) -> Iterator[Serving]:
    """`sightline serve --allow-tools`: a request's own tools are passed through."""
    with running(home, "--allow-tools") as served:
        yield served
