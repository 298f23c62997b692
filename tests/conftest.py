"""Fixtures shared by every test package: a loopback Ollama, a catalogue of it alone, and
an isolated Sightline."""

from __future__ import annotations

import os
import signal
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

from routing import secrets
from routing.catalogue import Catalogue
from routing.models import ProviderConfig
from tests.servers.fixtures import served
from tests.servers.llama_cpp import llama_cpp_server
from tests.servers.ollama import FakeOllama

# Qt tests never need a display; set before any test imports PySide6.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# A suite started where Ctrl+C is ignored (a shell's background job) would hand that on to
# every program it starts, and the tests that press Ctrl+C in one (a loopback server,
# `sightline ask --json`, an agent) would wait for nothing. A handler, unlike "ignore",
# is not inherited: each child starts with Ctrl+C's default meaning.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# CI explores the same examples every run, so a red run is a regression, not luck;
# a developer's runs keep exploring new inputs (and print any failure to pin).
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.hookimpl(tryfirst=True)  # before xdist's, which names each test's group
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The real engines (a llama.cpp server on both cores, Codex, OpenCode) run one after
    another on one worker under xdist, so two never share the cores and their limits hold."""
    for item in items:
        if item.get_closest_marker("real_engine"):
            item.add_marker(pytest.mark.xdist_group("real_engine"))


@pytest.hookimpl(tryfirst=True)  # before xdist's, which sends the ids to be scheduled
def pytest_collection_finish(session: pytest.Session) -> None:
    """`--dist loadgroup` reads a test's group from an "@group" suffix of its id, which
    xdist writes to the id's old string (`_nodeid`); pytest 9.2 keeps the id as a structure
    (`_id`), so the suffix was lost and the groups silently spread over the workers
    (pytest-xdist issue 1386). Here it is written where this pytest keeps it."""
    if not getattr(session.config.option, "loadgroup", False):
        return
    for item in session.items:
        names = {
            str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
            for mark in item.iter_markers("xdist_group")
        }
        suffix = "@" + "_".join(sorted(names))
        structured = getattr(item, "_id", None)  # None before pytest 9.2: xdist's suffix holds
        if names and structured is not None and not item.nodeid.endswith(suffix):
            item._id = type(structured).parse(item.nodeid + suffix)


@pytest.fixture(autouse=True)
def no_system_keyring() -> Iterator[None]:
    """No test reads or writes the person's keyring, and none finds another test's double:
    left to itself, keyring picks its backend from every backend class defined so far,
    the tests' stand-ins (and a slow one that waits 10 s) among them."""
    import keyring

    from tests.app.test_keys import NoKeyring

    previous = keyring.get_keyring()
    keyring.set_keyring(NoKeyring())
    yield
    keyring.set_keyring(previous)


@pytest.fixture(autouse=True)
def fresh_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's secrets are its own: the redaction registry is process-wide, and one
    test's key would be redacted from what the next one stores."""
    monkeypatch.setattr(secrets, "_known", set())
    monkeypatch.setattr(secrets, "_compiled", None)


fake_ollama = served(FakeOllama, "fake_ollama")  # a real HTTP server speaking Ollama's API


@pytest.fixture
async def catalogue(fake_ollama: FakeOllama) -> AsyncIterator[Catalogue]:
    """The loopback Ollama (blind and seeing models) as the only provider, not listed yet:
    a turn lists it (or `listed_catalogue`)."""
    made = Catalogue([ProviderConfig("ollama", "ollama", fake_ollama.base_url)])
    yield made
    await made.aclose()


@pytest.fixture
async def listed_catalogue(catalogue: Catalogue) -> Catalogue:
    """The same catalogue, its models listed."""
    await catalogue.refresh()
    return catalogue


@dataclass
class SightlineHome:
    """Where an isolated Sightline keeps its config and data during a test."""

    config: Path
    data: Path

    def env(self) -> dict[str, str]:
        """The environment a `sightline` subprocess needs to use this home."""
        env = {k: v for k, v in os.environ.items() if k != "OLLAMA_HOST"}
        env["SIGHTLINE_CONFIG"] = str(self.config)
        env["SIGHTLINE_DATA_DIR"] = str(self.data)
        env["QT_QPA_PLATFORM"] = "offscreen"
        return env


def write_config(path: Path, ollama_url: str | None, *, discover: bool = False) -> None:
    """A config with one Ollama provider (or none) and discovery off by default."""
    lines = [f"discover_local = {'true' if discover else 'false'}", ""]
    if ollama_url:
        lines += ["[[providers]]", 'id = "ollama"', 'kind = "ollama"', f'base_url = "{ollama_url}"']
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def home(tmp_path: Path, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch) -> SightlineHome:
    """A Sightline home whose only provider is the loopback Ollama; env points at it."""
    config = tmp_path / "config.toml"
    write_config(config, fake_ollama.base_url)
    home = SightlineHome(config=config, data=tmp_path / "data")
    monkeypatch.setenv("SIGHTLINE_CONFIG", str(config))
    monkeypatch.setenv("SIGHTLINE_DATA_DIR", str(home.data))
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    return home


@pytest.fixture
def llama_server() -> Iterator[str]:
    """A real llama.cpp server with a small text-only model (skips when not installed)."""
    with llama_cpp_server() as url:
        yield url
