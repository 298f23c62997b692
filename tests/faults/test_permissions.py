"""What Sightline writes is the person's only: folders 0700, files 0600, whatever the umask.

Whole processes run as a person runs them, each with the umask set in the child
(0o022, the usual one, and 0o000, which takes nothing away): `sightline ask` with
a picture against the loopback Ollama (the database, the log, the key index); an
export of that chat to Markdown with its pictures folder and to JSON (which also
reports the database's -wal and -shm files while the store is open); and the
providers written to a config file in a folder that doesn't exist yet. Then every
file and folder Sightline made is stat-ed. A data folder an older
release left 0755 with 0644 files is tightened on the next start, and a file of
the person's own in it is left alone.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SightlineHome
from tests.faults.cli import NO_KEYRING, ROOT, command
from tests.pictures import picture_file

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")

# Exports the one chat; prints the modes of the database's -wal and -shm files while
# the store is open (SQLite removes them when the last connection closes).
EXPORT = """
import json, os, stat, sys
from pathlib import Path
from app.export import snapshot
from app.export_json import write_json
from app.export_markdown import write_markdown
from app.store import Store

data = Path(sys.argv[1])
with Store.open(data) as store:
    (chat,) = store.conversations.list()
    exported = snapshot(store, chat.id)
    write_markdown(exported, Path(sys.argv[2]) / "chat.md")
    write_json(exported, Path(sys.argv[2]) / "chat.json")
    sidecars = [data / "sightline.db-wal", data / "sightline.db-shm"]
    print(json.dumps({p.name: oct(stat.S_IMODE(os.stat(p).st_mode)) for p in sidecars}))
"""

SAVE_CONFIG = """
import sys
from pathlib import Path
from app.config_file import save_providers
from routing.models import ProviderConfig

save_providers(Path(sys.argv[1]), [ProviderConfig("ollama", "ollama", sys.argv[2])])
"""


def run(env: dict[str, str], umask: int, *args: str) -> subprocess.CompletedProcess[str]:
    """A whole process (`python ARGS...`) with this umask."""
    done = subprocess.run(
        [sys.executable, *args],
        env=env | NO_KEYRING,
        umask=umask,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    return done


def modes(top: Path) -> dict[str, str]:
    """Every folder and file under `top` (itself included) with its permission bits."""
    return {
        str(path.relative_to(top.parent)): oct(stat.S_IMODE(path.lstat().st_mode))
        for path in (top, *sorted(top.rglob("*")))
    }


def private(top: Path) -> dict[str, str]:
    """What `modes` should say: 0700 for each folder, 0600 for each file."""
    return {
        str(path.relative_to(top.parent)): "0o700" if path.is_dir() else "0o600"
        for path in (top, *sorted(top.rglob("*")))
    }


@pytest.mark.parametrize("umask", [0o022, 0o000], ids=["umask-022", "umask-000"])
def test_every_file_and_folder_sightline_writes_is_the_persons_only(
    home: SightlineHome, tmp_path: Path, umask: int
) -> None:
    env = home.env()
    attached = picture_file(tmp_path / "red.png", (200, 40, 40), (32, 24))
    run(
        env,
        umask,
        *command("ask", "--model", "ollama:llava:7b", "--attach", str(attached), "hi")[1:],
    )
    exports = tmp_path / "exports"
    exports.mkdir()
    exported = run(env, umask, "-c", EXPORT, str(home.data), str(exports))
    sidecars = json.loads(exported.stdout)
    assert sidecars == {"sightline.db-wal": "0o600", "sightline.db-shm": "0o600"}
    config = tmp_path / "made" / "sightline" / "config.toml"
    run(env, umask, "-c", SAVE_CONFIG, str(config), "http://127.0.0.1:11434")

    written = modes(home.data)
    # Everything that holds the person's words or settings was written, so it was checked.
    for name in ("sightline.db", "keyring-providers.json", "logs/sightline.log"):
        assert f"data/{name}" in written, sorted(written)
    assert written == private(home.data)
    # The export folder is the person's; what Sightline put in it is private.
    made = {name: bits for name, bits in modes(exports).items() if name != "exports"}
    assert set(made) >= {"exports/chat.md", "exports/chat.json", "exports/chat_files"}
    assert any(name.endswith(".png") for name in made)
    assert made == {name: bits for name, bits in private(exports).items() if name != "exports"}
    # The config folders Sightline made, and the file it wrote.
    assert modes(tmp_path / "made") == private(tmp_path / "made")


def test_a_data_folder_an_older_release_left_open_is_tightened_on_the_next_start(
    home: SightlineHome, tmp_path: Path
) -> None:
    env = home.env()
    ask = command("ask", "--model", "ollama:llama3.2:3b", "hello")[1:]
    run(env, 0o022, *ask)
    # As an older release left it: the folders 0755, every file 0644.
    for path in (home.data, *home.data.rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)
    (home.data / "notes.txt").write_text("the person's own file", encoding="utf-8")
    (home.data / "notes.txt").chmod(0o644)
    assert modes(home.data)["data/sightline.db"] == "0o644"

    run(env, 0o022, *ask)
    found = modes(home.data)
    assert found.pop("data/notes.txt") == "0o644"  # not Sightline's to change
    assert found == {
        name: bits for name, bits in private(home.data).items() if name != "data/notes.txt"
    }
