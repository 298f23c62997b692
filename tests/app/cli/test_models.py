"""`sightline --version`, `models` as a person runs them (app/cli/__init__.py, models.py)."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from app.store import Store
from routing.context_window import memory_bytes, ollama_window
from tests.app.cli.helpers import sightline
from tests.conftest import SightlineHome
from tests.servers.ollama import FakeModel, FakeOllama, Reply, tags_entry


def test_version_is_the_one_in_pyproject(home: SightlineHome) -> None:
    with open(Path(__file__).resolve().parents[3] / "pyproject.toml", "rb") as handle:
        version = tomllib.load(handle)["project"]["version"]
    done = sightline(home, "--version")
    assert (done.returncode, done.stdout, done.stderr) == (0, f"sightline {version}\n", "")


def test_models_json(home: SightlineHome) -> None:
    done = sightline(home, "models", "--json")
    assert done.returncode == 0, done.stderr
    rows = {r["model"]: r for r in json.loads(done.stdout)}
    assert set(rows) == {"llama3.2:3b", "llava:7b", "qwen2.5vl:3b", "gemma3:270m"}
    assert rows["llava:7b"] | {} == {
        "provider": "ollama",
        "model": "llava:7b",
        "local": True,
        "sees": True,
        "sight_from": "listing",
        "checked": None,  # no sight check has asked it
        "tools": False,
        "size": tags_entry(FakeModel("llava:7b", ()))["size"],  # as /api/tags says
        # The window Sightline has Ollama load: the trained 32,768, within this memory.
        "context_window": ollama_window(32768, memory_bytes()),
        "context_from": "listing",
        "takes_no": {},  # Ollama's API takes every setting of a chat's
    }
    assert rows["llama3.2:3b"]["sees"] is False and rows["llama3.2:3b"]["tools"] is True


def test_models_json_says_a_model_that_refused_pictures_is_blind(home: SightlineHome) -> None:
    with Store.open(home.data) as store:
        store.learned.remember_blind("ollama:llava:7b")  # as a heal after a refusal does
    done = sightline(home, "models", "--json")
    assert done.returncode == 0, done.stderr
    llava = next(r for r in json.loads(done.stdout) if r["model"] == "llava:7b")
    assert (llava["sees"], llava["sight_from"]) == (False, "learned")


def test_models_json_says_which_settings_a_model_refused(home: SightlineHome) -> None:
    with Store.open(home.data) as store:
        store.learned.remember_refused("ollama:llama3.2:3b", "temperature")  # as a turn does
    done = sightline(home, "models", "--json")
    assert done.returncode == 0, done.stderr
    rows = {r["model"]: r for r in json.loads(done.stdout)}
    assert rows["llama3.2:3b"]["takes_no"] == {"temperature": "learned"}
    assert rows["llava:7b"]["takes_no"] == {}  # per provider and model
    plain = sightline(home, "models")
    assert "ollama:llama3.2:3b\tlocal\tblind, tools, no temperature" in plain.stdout.splitlines()


def test_models_plain(home: SightlineHome) -> None:
    done = sightline(home, "models")
    assert done.returncode == 0
    assert "ollama:llava:7b\tlocal\tsees, no tools" in done.stdout.splitlines()


def test_check_sight_prints_a_huge_answer_cut_and_says_so(
    home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    rambling = "Three blue squares.\n" + "and so on " * 1_000_000  # 10 MB in one piece
    for flags in ([], ["--json"]):
        fake_ollama.enqueue(Reply(text=rambling, chunk_chars=len(rambling)))
        done = sightline(home, "check-sight", "ollama:llava:7b", *flags)
        assert done.returncode == 0, done.stderr
        assert done.stdout.count("\n") == 1 and len(done.stdout) < 3000
        if flags:
            line = json.loads(done.stdout)
            assert line["answer"] == rambling[:2000] + "…" and line["answer_cut"] is True
        else:
            assert done.stdout.startswith("ollama:llava:7b: the listing says it sees")
            told = re.search(r"… \(cut: it was (\d+) characters\)\n$", done.stdout)
            assert told is not None and int(told.group(1)) > 2000
            assert "Three blue squares.\\nand so on" in done.stdout  # on one line


def test_check_sight_never_overrides_the_listing_and_the_person_may_mark_it_blind(
    home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue(Reply(text="There is no picture."))  # llava misreads the probe
    done = sightline(home, "check-sight", "ollama:llava:7b")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(
        "ollama:llava:7b: the listing says it sees; the check said blind: the listing stands. "
        "It answered: There is no picture."
    )
    assert "sightline check-sight ollama:llava:7b --mark-blind" in done.stderr
    rows = {r["model"]: r for r in json.loads(sightline(home, "models", "--json").stdout)}
    llava = rows["llava:7b"]
    assert (llava["sees"], llava["sight_from"], llava["checked"]) == (True, "listing", "blind")
    plain = sightline(home, "models").stdout.splitlines()
    assert "ollama:llava:7b\tlocal\tsees (check: blind), no tools" in plain
    # Asked again (as JSON), it says so too: the check's verdict, and the sight that stands.
    fake_ollama.enqueue(Reply(text="I can't see any image."))
    line = json.loads(sightline(home, "check-sight", "ollama:llava:7b", "--json").stdout)
    assert (line["sight"], line["sees"], line["sight_from"]) == ("blind", True, "listing")

    marked = sightline(home, "check-sight", "ollama:llava:7b", "--mark-blind")
    assert marked.returncode == 0, marked.stderr
    assert marked.stdout.startswith("ollama:llava:7b is marked blind: pictures go to it in words")
    with Store.open(home.data) as store:
        assert store.learned.marked() == {"ollama:llava:7b"}
        assert store.learned.blind() == set()  # not a refusal: kept apart
    llava = next(
        r
        for r in json.loads(sightline(home, "models", "--json").stdout)
        if r["model"] == "llava:7b"
    )
    assert (llava["sees"], llava["sight_from"]) == (False, "marked")
    assert "ollama:llava:7b\tlocal\tblind (marked), no tools" in sightline(home, "models").stdout

    unmarked = sightline(home, "check-sight", "ollama:llava:7b", "--unmark", "--json")
    assert json.loads(unmarked.stdout) == {
        "model": "ollama:llava:7b",
        "sees": True,
        "sight_from": "listing",
    }
    chats = [path for _method, path, _body in fake_ollama.requests if path == "/api/chat"]
    assert len(chats) == 2  # marking and unmarking ask the model nothing


def test_check_sight_cannot_mark_and_unmark_at_once(home: SightlineHome) -> None:
    done = sightline(home, "check-sight", "ollama:llava:7b", "--mark-blind", "--unmark")
    assert done.returncode != 0 and "not allowed with" in done.stderr
