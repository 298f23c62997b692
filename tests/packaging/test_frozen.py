"""The PyInstaller build runs without Python: the window, `models`, `ask`, `serve`, tools, pictures.

The build is made once per session by `packaging/build.py --if-stale`, which reuses
dist/ when it was built from the same sources and packages. Each command runs the
frozen executable from a temporary folder, with PYTHONPATH cleared, so nothing can
come from the source tree.
"""

from __future__ import annotations

import importlib.util
import json
import platform
import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest
from openai import OpenAI

from routing.describing.prompt import describer_prompt
from tests.app.serve.conftest import serving_from
from tests.app.serve.pictures import data_url, png
from tests.conftest import SightlineHome
from tests.pdfs import scanned_pdf
from tests.servers.ollama import FakeOllama, Reply

# Both builds write into the source tree (sightline.egg-info, build/, dist/): under xdist
# they run on one worker, one after the other, and each session fixture builds once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("builds")]

ROOT = Path(__file__).resolve().parents[2]
BUILD_TIMEOUT_S = 1800.0
RUN_TIMEOUT_S = 90.0


@pytest.fixture(scope="session")
def frozen() -> Path:
    """The frozen `sightline` executable, built (or found fresh) once per session."""
    if importlib.util.find_spec("PyInstaller") is None:
        pytest.skip("needs PyInstaller (pip install -e .[dev] installs it)")
    build = subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "build.py"), "--if-stale"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    name = "sightline.exe" if sys.platform == "win32" else "sightline"
    executable = ROOT / "dist" / "sightline" / name
    assert executable.is_file(), build.stdout
    return executable


def run(frozen: Path, home: SightlineHome, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the frozen app in `home`, from outside the source tree."""
    env = home.env()
    for name in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP"):
        env.pop(name, None)
    return subprocess.run(
        [str(frozen), *args],
        env=env,
        cwd=home.config.parent,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
    )


def test_version_is_the_projects(frozen: Path, home: SightlineHome) -> None:
    with open(ROOT / "pyproject.toml", "rb") as handle:
        version = tomllib.load(handle)["project"]["version"]
    done = run(frozen, home, "--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"sightline {version}\n"


def test_smoke_paints_the_window(frozen: Path, home: SightlineHome) -> None:
    # The first paint draws the SVG badges, read from _internal/resources/icons
    # (a missing one is an exception, so the smoke fails).
    done = run(frozen, home, "--smoke")
    assert done.returncode == 0, done.stderr
    [line] = done.stdout.splitlines()
    timings = json.loads(line)
    assert timings["smoke"] == "ok" and 0 < timings["first_paint_s"] < 60
    assert timings["collection"] == "window thread"
    assert "Traceback" not in done.stderr


def test_resources_and_qt_plugins_are_bundled(frozen: Path) -> None:
    # sys._MEIPASS is `_internal` in a one-folder build: the `resources` package's folder.
    internal = frozen.parent / "_internal"
    for name in ("describer_prompt.md", "sightline.desktop", "icons/sightline.png"):
        assert (internal / "resources" / name).is_file(), name
    if sys.platform.startswith("linux"):
        plugins = internal / "PySide6" / "Qt" / "plugins"
        for plugin in (
            "platforms/libqxcb.so",
            "platforms/libqoffscreen.so",
            "imageformats/libqjpeg.so",
            "imageformats/libqgif.so",
            "imageformats/libqwebp.so",
            "iconengines/libqsvgicon.so",
        ):
            assert (plugins / plugin).is_file(), plugin
        assert not (plugins / "platforms" / "libqeglfs.so").exists()
        assert not (internal / "PySide6" / "Qt" / "translations").exists()


def test_what_the_spec_leaves_out_stays_out(frozen: Path) -> None:
    from PyInstaller.archive.readers import CArchiveReader

    modules = set(CArchiveReader(str(frozen)).open_embedded_archive("PYZ.pyz").toc)
    assert "app.cli" in modules and "routing.wires.ollama" in modules  # the right archive
    for module in ("setuptools", "pkg_resources", "distutils", "pydoc", "readline", "numpy"):
        assert module not in modules, module
    # keyring's Secret Service backend imports secretstorage, which imports cryptography
    # (its AES for the encrypted session) whenever it is imported: both must stay.
    for module in ("keyring.backends.SecretService", "secretstorage", "jeepney"):
        assert module in modules, module
    assert "cryptography.hazmat.primitives.ciphers" in modules
    internal = frozen.parent / "_internal"
    assert list(internal.glob("cryptography/hazmat/bindings/_rust.*"))
    if sys.platform.startswith("linux"):
        assert not list(internal.glob("python3.*/lib-dynload/readline.*"))
        assert not (internal / "libreadline.so.8").exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ICU is bundled on Linux only")
def test_the_bundled_icu_data_is_trimmed(frozen: Path) -> None:
    # packaging/icu_data.py leaves out what Qt never asks ICU for (test_icu_data.py
    # shows Qt answers the same); the spec keeps all of it when there is no compiler.
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("built without a C compiler: the ICU data is whole")
    spec = importlib.util.spec_from_file_location("icu_data", ROOT / "packaging" / "icu_data.py")
    assert spec is not None and spec.loader is not None
    icu_data = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(icu_data)
    [library] = (frozen.parent / "_internal" / "PySide6" / "Qt" / "lib").glob("libicudata.so.*")
    names = [name for name, _data in icu_data.items(icu_data.exported_package(library)[1])[1]]
    assert all(icu_data.kept(name) for name in names)
    trees = {name.partition("/")[2].partition("/")[0] for name in names}
    assert {"coll", "zone"} <= trees and not trees & {"brkitr", "curr", "lang", "unit"}
    assert any(name.endswith(".cnv") for name in names)


def test_the_archive_holds_the_folder(frozen: Path) -> None:
    # build.py reports both sizes, also when it finds dist/ up to date.
    done = subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "build.py"), "--if-stale"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
    )
    assert done.returncode == 0, done.stderr
    [folder, archive] = [line.split() for line in done.stdout.splitlines()[-2:]]
    assert folder[1:] == ["MB", "dist/sightline"] and int(folder[0]) > 0
    assert archive[1] == "MB" and int(archive[0]) > 0
    packed = ROOT / archive[2]
    if sys.platform.startswith("linux"):
        assert packed.name.endswith("-linux-" + platform.machine().lower() + ".tar.xz")
        with tarfile.open(packed) as tar:  # tarfile reads xz as `tar -xJf` does
            members = {member.name: member for member in tar.getmembers()}
        folder_files = {
            "sightline/" + path.relative_to(frozen.parent).as_posix()
            for path in frozen.parent.rglob("*")
            if path.is_symlink() or not path.is_dir()
        }
        assert {name for name, m in members.items() if not m.isdir()} == folder_files
        assert members["sightline/sightline"].mode & 0o111
        assert "sightline/sightline.desktop" in members


def test_models_json_lists_the_loopback_ollama(frozen: Path, home: SightlineHome) -> None:
    done = run(frozen, home, "models", "--json")
    assert done.returncode == 0, done.stderr
    rows = {row["model"]: row for row in json.loads(done.stdout)}
    assert set(rows) == {"llama3.2:3b", "llava:7b", "qwen2.5vl:3b", "gemma3:270m"}
    assert rows["llava:7b"]["sees"] is True and rows["llama3.2:3b"]["tools"] is True


def test_ask_answers(frozen: Path, home: SightlineHome) -> None:
    done = run(frozen, home, "ask", "--model", "ollama:llama3.2:3b", "hello")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "You said: hello\n"


def test_a_scanned_pdf_is_rendered_and_described(
    frozen: Path, home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    # pypdfium2's shared library renders the page; a seeing model describes it for a
    # blind one with the bundled describer prompt as its system message.
    pdf = home.config.parent / "scan.pdf"
    pdf.write_bytes(scanned_pdf(1))
    fake_ollama.enqueue(Reply(text="A box."), Reply(text="ok"))
    done = run(frozen, home, "ask", "--model", "ollama:gemma3:270m", "--attach", str(pdf), "what?")
    assert done.returncode == 0, done.stderr
    requests = fake_ollama.chat_requests()
    describe = next(r for r in requests if r["model"] != "gemma3:270m")
    system = describe["messages"][0]
    assert system["role"] == "system" and describer_prompt() in system["content"]
    assert len(describe["messages"][-1]["images"]) == 1
    answer = requests[-1]
    assert answer["model"] == "gemma3:270m" and "A box." in answer["messages"][-1]["content"]


def test_tools_run_frozen(frozen: Path, home: SightlineHome, fake_ollama: FakeOllama) -> None:
    # read_file decodes a cp1252 file with charset_normalizer's compiled detector, and
    # an MCP server (the source tree's test server, run by this Python) is reached
    # through the bundled mcp client.
    text = "Der Bär aß Äpfel und Öl, während die Übung lief. " * 20
    legacy = home.config.parent / "legacy.txt"
    legacy.write_bytes(text.encode("cp1252"))
    servers = home.config.parent / "servers.json"
    server = {"command": sys.executable, "args": ["-m", "tests.servers.mcp_server"]}
    servers.write_text(json.dumps({"mcpServers": {"pics": server | {"cwd": str(ROOT)}}}))
    fake_ollama.enqueue(
        Reply(tool_calls=[{"name": "read_file", "arguments": {"path": str(legacy)}}]),
        Reply(tool_calls=[{"name": "pics__tiny_image", "arguments": {}}]),
        Reply(text="Done."),
    )
    done = run(
        frozen, home, "ask", "--json", "--allow-tools", "--mcp-config", str(servers),
        "--model", "ollama:qwen2.5vl:3b", "read it",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    read, picture = [e for e in events if e["type"] == "tool_result"]
    assert (read["name"], read["text"], read["is_error"]) == ("read_file", text, False)
    assert (picture["name"], picture["pictures"], picture["is_error"]) == (
        "pics__tiny_image",
        1,
        False,
    )


def test_serve_answers_the_openai_client_frozen(
    frozen: Path, home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    # uvicorn picks its event loop and HTTP protocol by module name at run time, which
    # PyInstaller's import scan can't follow: a served picture turn proves they are bundled.
    env = home.env()
    for name in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP"):
        env.pop(name, None)
    process = subprocess.Popen(
        [str(frozen), "serve", "--port", "0"],
        env=env,
        cwd=home.config.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        serving = serving_from(process)
        client = OpenAI(base_url=serving.openai_url, api_key=serving.token, max_retries=0)
        completion = client.chat.completions.create(
            model="ollama:llama3.2:3b",
            messages=[
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "What colour is it?"},
                        {"type": "image_url", "image_url": {"url": data_url(png("red"))}},
                    ],
                }
            ],
        )
        assert completion.choices[0].message.content
        assert completion.model_extra is not None
        kinds = {notice["kind"] for notice in completion.model_extra["sightline_notices"]}
        assert "disclosure" in kinds  # a seeing local model looked for the blind one
        blind = [r for r in fake_ollama.chat_requests() if r["model"] == "llama3.2:3b"]
        assert blind and not any(m.get("images") for r in blind for m in r["messages"])
        status, err = serving.stop()
        assert status == 0, err
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=30)
