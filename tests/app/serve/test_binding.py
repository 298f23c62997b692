"""Where it listens (app/serve/binding.py): loopback by default; beyond it only with
--allow-network, and then said out loud."""

from __future__ import annotations

import pytest

from app.serve.binding import BindRefused, checked_host, is_loopback
from tests.app.cli.helpers import sightline
from tests.app.serve.conftest import serving_from, start
from tests.conftest import SightlineHome


def test_loopback_is_loopback_and_nothing_else_is() -> None:
    for host in ("127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost", "LOCALHOST"):
        assert is_loopback(host), host
    for host in ("0.0.0.0", "::", "192.168.1.5", "10.0.0.1", "example.com", "localhost.evil"):
        assert not is_loopback(host), host
    assert checked_host("127.0.0.1", False) is None
    with pytest.raises(BindRefused, match="--allow-network"):
        checked_host("0.0.0.0", False)
    assert "beyond this computer" in (checked_host("0.0.0.0", True) or "")


def test_a_host_beyond_loopback_is_refused_without_allow_network(home: SightlineHome) -> None:
    done = sightline(home, "serve", "--host", "0.0.0.0", "--port", "0")
    assert done.returncode == 1
    assert done.stdout == ""  # it never said it was serving
    [line] = done.stderr.strip().splitlines()
    assert "0.0.0.0 is not loopback" in line and "--allow-network" in line
    assert not (home.data / "serve-token").exists()  # refused before anything was made


def test_allowed_beyond_loopback_it_says_so(home: SightlineHome) -> None:
    process = start(home, "--host", "0.0.0.0", "--port", "0", "--allow-network")
    try:
        served = serving_from(process)
        assert served.openai_url.startswith("http://0.0.0.0:")
        status, err = served.stop()
        assert status == 0
        assert "serving beyond this computer on 0.0.0.0 (--allow-network)" in err
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


def test_a_port_in_use_is_one_line(home: SightlineHome) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = sightline(home, "serve", "--port", str(port))
    assert done.returncode == 1
    assert f"can't listen on 127.0.0.1:{port}" in done.stderr
