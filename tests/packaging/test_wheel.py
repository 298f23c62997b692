"""Sightline installed from its wheel works: the resources ship inside, and the commands run.

The sdist and the wheel are built once per session with `python -m build`, which
makes the wheel from the sdist, so a file missing from either is missing here.
The wheel is installed with its dependencies into a fresh virtual environment
outside the source tree, and every command runs from there with PYTHONPATH
cleared, so nothing can come from the checkout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import tomllib
import typing
import venv
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

import resources
from routing.context_window import memory_bytes, ollama_window
from routing.describing.prompt import describer_prompt
from tests.conftest import SightlineHome
from tests.pdfs import text_pdf
from tests.pictures import picture_file
from tests.servers.ollama import FakeOllama, Reply

# Both builds write into the source tree (sightline.egg-info, build/, dist/): under xdist
# they run on one worker, one after the other, and each session fixture builds once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("builds")]

ROOT = Path(__file__).resolve().parents[2]
BUILD_TIMEOUT_S = 300.0
INSTALL_TIMEOUT_S = 900.0
RUN_TIMEOUT_S = 90.0


@dataclass(frozen=True)
class Built:
    """The sdist and the wheel, and the `sightline` command of a venv with the wheel installed."""

    sdist: Path
    wheel: Path
    command: Path


def _project_version() -> str:
    with open(ROOT / "pyproject.toml", "rb") as handle:
        return str(tomllib.load(handle)["project"]["version"])


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """Build the sdist and wheel, then install the wheel into a new venv outside the tree."""
    out = tmp_path_factory.mktemp("dist")
    build = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
    )
    assert build.returncode == 0, build.stdout[-4000:] + build.stderr[-4000:]
    [sdist] = out.glob("sightline-*.tar.gz")
    [wheel] = out.glob("sightline-*.whl")
    env_dir = tmp_path_factory.mktemp("installed") / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    # Without PYTHONPATH: pointing at a checkout, it shows pip a sightline already there
    # (its egg-info), and pip would install only the dependencies, not the command.
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)],
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
        cwd=env_dir,
        env=clean,
    )
    assert install.returncode == 0, install.stdout[-4000:] + install.stderr[-4000:]
    return Built(sdist, wheel, env_dir / "bin" / "sightline")


def run(built: Built, home: SightlineHome, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the installed `sightline` in `home`, from outside the source tree."""
    env = home.env()
    for name in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV"):
        env.pop(name, None)
    return subprocess.run(
        [str(built.command), *args],
        env=env,
        cwd=home.config.parent,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
    )


def _shipped_files() -> set[str]:
    """Every file in the source tree's resources/ folder, as a path inside the package."""
    folder = ROOT / "resources"
    return {
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }


def test_the_code_names_only_files_that_exist() -> None:
    # Every resource the code can ask for is a file of resources/, badges included.
    assert set(typing.get_args(resources.Badge)) == set(resources.BADGES)
    assert _shipped_files() >= resources.READ_AT_RUN_TIME
    with pytest.raises(resources.ResourceMissing):
        resources.read_bytes("icons/not-shipped.svg")


def test_every_resource_is_in_the_wheel_and_the_sdist(built: Built) -> None:
    with zipfile.ZipFile(built.wheel) as wheel:
        in_wheel = set(wheel.namelist())
    with tarfile.open(built.sdist) as sdist:
        in_sdist = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    for name in sorted(resources.READ_AT_RUN_TIME | _shipped_files()):
        assert f"resources/{name}" in in_wheel, f"{name} is not in {built.wheel.name}"
        assert f"resources/{name}" in in_sdist, f"{name} is not in {built.sdist.name}"
    # Only Sightline's own packages: neither the tests nor the benchmarks are installed.
    tops = {name.split("/", 1)[0] for name in in_wheel if "/" in name}
    assert {t for t in tops if not t.endswith(".dist-info")} == {
        "app",
        "resources",
        "routing",
        "vision",
    }


def test_version_comes_from_the_metadata(built: Built, home: SightlineHome) -> None:
    done = run(built, home, "--version")
    assert (done.returncode, done.stdout) == (0, f"sightline {_project_version()}\n"), done.stderr


def test_smoke_paints_the_window_with_its_icons(built: Built, home: SightlineHome) -> None:
    # The first paint draws the window icon and the SVG badges from the installed package.
    done = run(built, home, "--smoke")
    assert done.returncode == 0, done.stderr
    [line] = done.stdout.splitlines()
    smoke = json.loads(line)
    assert smoke["smoke"] == "ok"
    assert smoke["collection"] == "window thread"  # Python's collector kept off the workers
    assert "Traceback" not in done.stderr


def test_models_json_lists_the_loopback_ollama(built: Built, home: SightlineHome) -> None:
    done = run(built, home, "models", "--json")
    assert done.returncode == 0, done.stderr
    rows = {row["model"]: row for row in json.loads(done.stdout)}
    assert set(rows) == {"llama3.2:3b", "llava:7b", "qwen2.5vl:3b", "gemma3:270m"}
    assert rows["llava:7b"]["sees"] is True and rows["gemma3:270m"]["sees"] is False
    # Each model's window, and where it came from: the trained 32,768 within this memory.
    window = ollama_window(32768, memory_bytes())
    assert (rows["llava:7b"]["context_window"], rows["llava:7b"]["context_from"]) == (
        window,
        "listing",
    )


def test_a_picture_for_a_blind_model_is_described_with_the_shipped_prompt(
    built: Built, home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    picture = picture_file(home.config.parent / "dot.png", size=(64, 48))
    fake_ollama.enqueue(Reply(text="A red dot."), Reply(text="It is a dot."))
    done = run(
        built, home, "ask", "--model", "ollama:gemma3:270m", "--attach", str(picture), "what?"
    )
    assert (done.returncode, done.stdout) == (0, "It is a dot.\n"), done.stderr
    describe, answer = fake_ollama.chat_requests()
    assert describe["model"] != "gemma3:270m"
    assert describe["messages"][0] == {"role": "system", "content": describer_prompt()}
    assert len(describe["messages"][-1]["images"]) == 1
    assert answer["model"] == "gemma3:270m" and "images" not in answer["messages"][-1]
    assert "A red dot." in answer["messages"][-1]["content"]
    assert "looked at 1 picture" in done.stderr


def test_a_pdf_is_read_from_the_installed_copy(
    built: Built, home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    pdf = home.config.parent / "report.pdf"
    pdf.write_bytes(text_pdf(["Quarterly figures: 42 crates.", "Second page."]))
    fake_ollama.enqueue(Reply(text="42 crates."))
    done = run(
        built, home, "ask", "--model", "ollama:llama3.2:3b", "--attach", str(pdf), "how many?"
    )
    assert (done.returncode, done.stdout) == (0, "42 crates.\n"), done.stderr
    [answer] = fake_ollama.chat_requests()
    sent = answer["messages"][-1]["content"]
    assert "Quarterly figures: 42 crates." in sent and "Second page." in sent


def test_a_chat_made_headless_is_answered_again_and_read_back_from_the_installed_copy(
    built: Built, home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue(Reply(text="Red."), Reply(text="Blue."))
    first = run(
        built, home, "ask", "--model", "ollama:llama3.2:3b", "--system", "Be brief.", "a colour?"
    )
    assert first.returncode == 0, first.stderr
    [chat] = json.loads(run(built, home, "chats", "--json").stdout)
    again = run(built, home, "ask", "--conversation", chat["id"], "--regenerate")
    assert (again.returncode, again.stdout) == (0, "Blue.\n"), again.stderr
    exported = json.loads(run(built, home, "export", chat["id"], "--format", "json").stdout)
    assert [i["shown"] for i in exported["items"]] == [True, False, True]
    assert all(
        r["messages"][0] == {"role": "system", "content": "Be brief."}
        for r in fake_ollama.chat_requests()
    )


def test_an_agent_reads_a_picture_through_the_installed_door(
    built: Built, home: SightlineHome, tmp_path: Path
) -> None:

    from tests.servers.acp_agent import read_log
    from tests.servers.acp_config import with_agent

    log = tmp_path / "agent-log"
    log.mkdir()
    with_agent(home, log, "sees,door")
    picture = picture_file(tmp_path / "red.png")
    done = run(built, home, "ask", "--json", "--allow-tools", "--model", "fake", str(picture))
    assert done.returncode == 0, done.stderr
    [entry] = [e["door_entry"] for e in read_log(log) if "door_entry" in e]
    # The door the agent started is the installed copy's own interpreter, asking over its line.
    assert Path(entry[0]).parent == built.command.parent
    assert entry[1:4] == ["-m", "app", "mcp-serve"] and "--ask" in entry
    assert next(e["door"] for e in read_log(log) if "door" in e) == ["text", "image"]
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["pictures"] for line in lines if line["type"] == "tool_result"] == [1]


def test_codex_answers_from_the_installed_copy(
    built: Built, home: SightlineHome, tmp_path: Path
) -> None:
    from tests.servers.acp_config import with_fake_codex

    with_fake_codex(home, tmp_path / "state.json", "command", model_provider="loopback")
    done = run(built, home, "ask", "--allow-tools", "--model", "codex", "make a file")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "You said: make a file (0 images) Approval: accept."
