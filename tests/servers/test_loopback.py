"""The scripted loopback base: what it records, how it misbehaves, TLS, and every server
run on its own from the command line."""

from __future__ import annotations

import signal
import ssl
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.servers.anthropic import DEFAULT_KEY
from tests.servers.hostile import ENDLESS_LINE
from tests.servers.loopback import CERTIFICATE, Recorded
from tests.servers.ollama import FakeOllama, Reply
from tests.servers.proxy import RecordingServer

ROOT = Path(__file__).resolve().parents[2]


def test_every_request_is_recorded_with_its_headers_and_parsed_body(
    fake_ollama: FakeOllama,
) -> None:
    with httpx.Client(base_url=fake_ollama.base_url) as client:
        client.get("/api/tags", headers={"X-Probe": "1"})
        client.post("/api/show", content=b"{not json")
        client.post("/api/show?x=1", json={"model": "llava:7b"})
    tags, broken, show = fake_ollama.received()
    assert (tags.method, tags.path, tags.body) == ("GET", "/api/tags", None)
    assert tags.headers["x-probe"] == tags.headers["X-PROBE"] == "1"  # any case, as HTTP means
    assert "X-Probe" in tags.headers and "X-Other" not in tags.headers
    assert broken.body is None
    assert show == Recorded("POST", "/api/show?x=1", show.headers, {"model": "llava:7b"})
    assert fake_ollama.paths() == ["GET /api/tags", "POST /api/show", "POST /api/show?x=1"]


def test_a_hostile_path_misbehaves_until_the_client_hangs_up(fake_ollama: FakeOllama) -> None:
    fake_ollama.hostile["/api/tags"] = ENDLESS_LINE
    with (
        httpx.Client(base_url=fake_ollama.base_url) as client,
        client.stream("GET", "/api/tags") as response,
    ):
        read = 0
        for piece in response.iter_bytes():
            read += len(piece)
            if read > 1 << 20:
                break
    assert read > 1 << 20  # more than a megabyte, and no end in sight
    assert fake_ollama.paths() == ["GET /api/tags"]


CHAT = {"model": "llama3.2:3b", "messages": [{"role": "user", "content": "q"}]}


def test_a_dropped_stream_is_cut_mid_body(fake_ollama: FakeOllama) -> None:
    fake_ollama.enqueue(Reply(text="one two three four", chunk_chars=4, drop_after=2))
    lines: list[str] = []
    with (
        pytest.raises(httpx.RemoteProtocolError),
        httpx.stream("POST", f"{fake_ollama.base_url}/api/chat", json=CHAT) as response,
    ):
        for line in response.iter_lines():
            lines.append(line)
    assert len(lines) <= 2  # two pieces were sent before the cut, never the end


def test_stopping_cuts_an_open_stream() -> None:
    server = FakeOllama()
    server.start()
    try:
        server.enqueue(Reply(text="slowly", chunk_chars=1, delay=0.2))
        with (
            pytest.raises(httpx.RemoteProtocolError),
            httpx.stream("POST", f"{server.base_url}/api/chat", json=CHAT) as response,
        ):
            for _ in response.iter_lines():
                server.stop()  # as a killed server would: mid-answer
    finally:
        server.stop()  # again is harmless


def test_tls_is_served_with_a_certificate_only_its_file_vouches_for() -> None:
    trusting = ssl.create_default_context(cafile=str(CERTIFICATE))
    with RecordingServer(200, "over TLS", tls=True) as server:
        assert server.base_url.startswith("https://127.0.0.1:")
        assert httpx.get(server.base_url, verify=trusting).text == "over TLS"
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            httpx.get(server.base_url)
    assert server.recorded() == ["GET /"]  # the refused handshake never became a request


@pytest.mark.parametrize(
    ("module", "suffix", "listing", "headers"),
    [
        ("tests.servers.ollama", "", "/api/tags", {}),
        ("tests.servers.openai_chat", "/v1", "/models", {}),
        ("tests.servers.lmstudio", "", "/api/v1/models", {}),
        (
            "tests.servers.anthropic",
            "",
            "/v1/models",
            {"x-api-key": DEFAULT_KEY, "anthropic-version": "2023-06-01"},
        ),
    ],
)
def test_each_server_runs_standalone_until_ctrl_c(
    module: str, suffix: str, listing: str, headers: dict[str, str]
) -> None:
    """`python -m tests.servers.X --port 0` prints its address, serves, and ends on Ctrl+C."""
    process = subprocess.Popen(
        [sys.executable, "-m", module, "--port", "0"], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        address = process.stdout.readline().strip()
        assert address.startswith("http://127.0.0.1:") and address.endswith(suffix)
        response = httpx.get(f"{address}{listing}", headers=headers, timeout=5)
        assert response.status_code == 200 and response.json()
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_a_suite_started_where_ctrl_c_is_ignored_starts_children_that_hear_it() -> None:
    """A background job's shell ignores Ctrl+C; the suite's children must not inherit that."""
    probe = (
        "import subprocess, sys; import tests.conftest; "
        "print(subprocess.run([sys.executable, '-c', 'import signal; "
        "print(signal.getsignal(signal.SIGINT).__name__)'], capture_output=True, text=True).stdout)"
    )
    done = subprocess.run(
        ["bash", "-c", f'trap "" INT; exec "{sys.executable}" -c "{probe}"'],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == "default_int_handler"
