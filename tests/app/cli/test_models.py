"""`sightline --version`, `models` as a person runs them (app/cli/__init__.py, models.py)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from app.store import Store
from tests.app.cli.helpers import sightline
from tests.conftest import SightlineHome


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
        "tools": False,
        "context_length": rows["llava:7b"]["context_length"],
    }
    assert rows["llama3.2:3b"]["sees"] is False and rows["llama3.2:3b"]["tools"] is True


def test_models_json_says_a_model_that_refused_pictures_is_blind(home: SightlineHome) -> None:
    with Store.open(home.data) as store:
        store.learned.remember_blind("ollama:llava:7b")  # as a heal after a refusal does
    done = sightline(home, "models", "--json")
    assert done.returncode == 0, done.stderr
    llava = next(r for r in json.loads(done.stdout) if r["model"] == "llava:7b")
    assert (llava["sees"], llava["sight_from"]) == (False, "learned")


def test_models_plain(home: SightlineHome) -> None:
    done = sightline(home, "models")
    assert done.returncode == 0
    assert "ollama:llava:7b\tlocal\tsees, no tools" in done.stdout.splitlines()
