"""A turn checks a model of unknown sight before its first picture, once, and follows the verdict.

A server of the person's own (kind `custom`, no listing that says) on loopback,
which either takes pictures and ignores them or really looks; the loopback Ollama's
seeing model describes for it when it turns out blind.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.store import Store
from app.turn.events import TurnEnded
from app.turn.runner import TurnRunner
from routing.catalogue import Catalogue
from routing.models import ProviderConfig, SightFrom
from routing.router import RoutingPrefs
from routing.sight_check import QUESTION
from routing.transcript import Notice, NoticeKind
from tests.app.turn.engine_helpers import run_turn
from tests.conftest import SightlineHome
from tests.events import ended, stored_notices
from tests.faults.cli import sightline
from tests.pictures import make_picture
from tests.servers.ollama import FakeOllama
from tests.servers.openai_chat import ChatModel, FakeOpenAI
from vision.pictures import Picture

MINE = "mine:my-model"


def _photo() -> Picture:
    return make_picture("orange", (40, 30), label="cat.png")


def _probes(server: FakeOpenAI) -> list[dict[str, Any]]:
    return [r for r in server.chat_requests() if QUESTION in json.dumps(r)]


def _setup(store: Store, server: FakeOpenAI, ollama: FakeOllama, **prefs: Any) -> TurnRunner:
    providers = [
        ProviderConfig("mine", "custom", server.url),
        ProviderConfig("ollama", "ollama", ollama.base_url),
    ]
    checked = store.learned.checks()
    catalogue = Catalogue(providers, blind=store.learned.blind(), checked=checked)
    return TurnRunner(store, catalogue, prefs=RoutingPrefs(**prefs))


async def _turn(runner: TurnRunner, cid: str, pictures: tuple[Picture, ...] = ()) -> TurnEnded:
    return ended(await run_turn(runner, cid, "what is in it?", MINE, pictures))


def _sight_notices(store: Store, cid: str) -> list[Notice]:
    return stored_notices(store, cid, NoticeKind.SIGHT)


async def test_a_server_that_ignores_pictures_is_found_blind_once(
    tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    with FakeOpenAI([ChatModel("my-model")], pictures="ignore") as server:
        with Store.open(tmp_path / "data") as store:
            runner = _setup(store, server, fake_ollama)
            cid = store.conversations.create()
            assert (await _turn(runner, cid, pictures=(_photo(),))).error is None
            assert (await _turn(runner, cid, pictures=(_photo(),))).error is None
            assert runner.catalogue.find(MINE).sight_from == SightFrom.CHECKED  # type: ignore[union-attr]
            await runner.catalogue.aclose()
        with Store.open(tmp_path / "data") as store:  # after a restart: still known
            runner = _setup(store, server, fake_ollama)
            cid2 = store.conversations.create()
            assert (await _turn(runner, cid2, pictures=(_photo(),))).error is None
            await runner.catalogue.aclose()
            [notice] = _sight_notices(store, cid)
            assert notice.text.startswith(f"{MINE} doesn't see pictures")
            assert _sight_notices(store, cid2) == []
    assert len(_probes(server)) == 1  # exactly one probe, for the model's whole life
    answers = [r for r in server.chat_requests() if QUESTION not in json.dumps(r)]
    assert len(answers) == 3
    for request in answers:  # the pictures went as words, the words as a plain string
        content = request["messages"][-1]["content"]
        assert isinstance(content, str) and "Description of" in content


async def test_a_model_that_looks_gets_its_pictures(store: Store, fake_ollama: FakeOllama) -> None:
    with FakeOpenAI([ChatModel("my-model")], pictures="read") as server:
        runner = _setup(store, server, fake_ollama)
        cid = store.conversations.create()
        ending = await _turn(runner, cid, pictures=(_photo(),))
        await runner.catalogue.aclose()
    assert ending.error is None
    [notice] = _sight_notices(store, cid)
    assert notice.text.startswith(f"{MINE} sees pictures")
    probe, answer = server.chat_requests()
    assert QUESTION in json.dumps(probe)
    parts = answer["messages"][-1]["content"]
    assert [p["type"] for p in parts] == ["text", "image_url"]
    assert fake_ollama.chat_requests() == []  # nobody had to describe


async def test_no_check_without_pictures_or_when_turned_off(
    store: Store, fake_ollama: FakeOllama
) -> None:
    with FakeOpenAI([ChatModel("my-model")], pictures="ignore") as server:
        runner = _setup(store, server, fake_ollama)
        cid = store.conversations.create()
        await _turn(runner, cid)  # words only: nothing to check for
        await runner.catalogue.aclose()
        off = _setup(store, server, fake_ollama, check_sight=False)
        await _turn(off, cid, pictures=(_photo(),))
        await off.catalogue.aclose()
    assert _probes(server) == []
    last = server.chat_requests()[-1]["messages"][-1]["content"]
    assert [p["type"] for p in last] == ["text", "image_url"]  # unknown sight: sent as is


async def test_a_model_whose_listing_says_is_never_checked(
    store: Store, fake_ollama: FakeOllama
) -> None:
    catalogue = Catalogue([ProviderConfig("ollama", "ollama", fake_ollama.base_url)])
    runner = TurnRunner(store, catalogue)
    cid = store.conversations.create()
    await run_turn(runner, cid, "see?", "ollama:llama3.2:3b", (_photo(),))
    await catalogue.aclose()
    assert QUESTION not in json.dumps(fake_ollama.chat_requests())


def test_check_sight_and_ask_json_from_the_command_line(
    home: SightlineHome, tmp_path: Path
) -> None:
    with FakeOpenAI([ChatModel("my-model")], pictures="ignore") as server:
        with open(home.config, "a", encoding="utf-8") as config:
            config.write(
                f'\n[[providers]]\nid = "mine"\nkind = "custom"\nbase_url = "{server.url}"\n'
            )
        done = sightline(home.env(), "check-sight", MINE, "--json")
        assert done.returncode == 0, done.stderr
        line = json.loads(done.stdout)
        assert (line["model"], line["sight"]) == (MINE, "blind") and line["answer"]
        models = json.loads(sightline(home.env(), "models", "--json").stdout)
        mine = next(m for m in models if m["provider"] == "mine")
        assert (mine["sees"], mine["sight_from"]) == (False, "checked")
    with FakeOpenAI([ChatModel("my-model")], pictures="read") as fresh:
        home.config.write_text(
            f'discover_local = false\n[[providers]]\nid = "mine"\nkind = "custom"\n'
            f'base_url = "{fresh.url}"\n',
            encoding="utf-8",
        )
        picture = tmp_path / "cat.png"
        picture.write_bytes(_photo().data)
        asked = sightline(
            home.env(), "ask", "--json", "--model", MINE, "--attach", str(picture), "what?"
        )
        assert asked.returncode == 0, asked.stderr
        events = [json.loads(x) for x in asked.stdout.splitlines()]
        [sight] = [e for e in events if e["type"] == "notice" and e["kind"] == "sight"]
        assert sight["text"].startswith(f"{MINE} sees pictures")


async def test_a_server_that_refuses_the_probe_is_blind_without_a_heal(
    store: Store, fake_ollama: FakeOllama
) -> None:
    with FakeOpenAI([ChatModel("my-model", sees=False)], flavour="llamacpp") as server:
        server.props = lambda: {"model_alias": "my-model", "total_slots": 1}  # type: ignore[method-assign]
        runner = _setup(store, server, fake_ollama)
        cid = store.conversations.create()
        assert (await _turn(runner, cid, pictures=(_photo(),))).error is None
        await runner.catalogue.aclose()
    probe, answer = server.chat_requests()
    assert QUESTION in json.dumps(probe) and isinstance(answer["messages"][-1]["content"], str)
    [notice] = _sight_notices(store, cid)
    assert "doesn't see pictures" in notice.text and "refused" in notice.details
    kinds = [i.item.kind for i in store.items(cid) if isinstance(i.item, Notice)]
    assert NoticeKind.HEAL not in kinds
