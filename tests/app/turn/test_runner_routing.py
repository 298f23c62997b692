"""Routing end to end over loopback: offline fallback, Auto with pictures, every choice noticed."""

from __future__ import annotations

from app.ledger import ledger
from app.store import Store
from app.turn.events import TurnEnded
from app.turn.runner import TurnRunner
from routing.catalogue import Catalogue
from routing.errors import CannotConnect
from routing.models import ProviderConfig
from routing.transcript import NoticeKind
from tests.app.turn.engine_helpers import run_turn
from tests.events import stored_notices
from tests.pictures import make_picture
from tests.servers.loopback import closed_port
from tests.servers.ollama import FakeOllama
from tests.servers.openai_chat import FakeOpenAI


async def test_cloud_down_a_local_model_answers_with_a_notice(
    store: Store, fake_ollama: FakeOllama
) -> None:
    cloud = ProviderConfig(
        "oa", "openai", f"http://127.0.0.1:{closed_port()}/v1", "sk-x", local=False
    )
    local = ProviderConfig("ollama", "ollama", fake_ollama.base_url)
    catalogue = Catalogue([cloud, local])
    runner = TurnRunner(store, catalogue)
    cid = store.conversations.create()
    events = await run_turn(runner, cid, "hello", "oa:gpt-4o")
    await catalogue.aclose()
    assert isinstance(events[-1], TurnEnded) and events[-1].error is None
    [notice] = stored_notices(store, cid)
    assert notice.kind == NoticeKind.ROUTING
    assert "oa:gpt-4o can't be reached" in notice.text and "on this computer" in notice.text
    assert store.messages(cid)[-1].model == "ollama:llama3.2:3b"


async def test_provider_that_stops_answering_mid_chat_falls_back(
    store: Store, fake_ollama: FakeOllama
) -> None:
    server = FakeOpenAI()
    server.start()
    cloud = ProviderConfig("oa", "custom", server.url, local=False)
    catalogue = Catalogue([cloud, ProviderConfig("ollama", "ollama", fake_ollama.base_url)])
    runner = TurnRunner(store, catalogue)
    cid = store.conversations.create()
    await run_turn(runner, cid, "first", "oa:gpt-4o-mini")  # listed and answered
    server.stop()  # then the connection goes
    events = await run_turn(runner, cid, "second", "oa:gpt-4o-mini")
    await catalogue.aclose()
    assert isinstance(events[-1], TurnEnded) and events[-1].error is None
    assert "can't be reached" in stored_notices(store, cid)[-1].text
    assert store.messages(cid)[-1].text == "You said: second"


async def test_nothing_reachable_is_the_turns_error(store: Store) -> None:
    cloud = ProviderConfig(
        "oa", "openai", f"http://127.0.0.1:{closed_port()}/v1", "sk-x", local=False
    )
    down = ProviderConfig("ollama", "ollama", f"http://127.0.0.1:{closed_port()}")
    catalogue = Catalogue([cloud, down])
    runner = TurnRunner(store, catalogue)
    cid = store.conversations.create()
    events = await run_turn(runner, cid, "hello", "oa:gpt-4o")
    await catalogue.aclose()
    ended = events[-1]
    assert isinstance(ended, TurnEnded) and isinstance(ended.error, CannotConnect)
    assert [n.kind for n in stored_notices(store, cid)] == [NoticeKind.ERROR]


async def test_auto_with_a_picture_and_tools_picks_the_local_model_that_has_both(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    from app.tools.read_file import ReadFile

    picture = make_picture("green", (6, 6), label="leaf.png")
    runner = TurnRunner(store, catalogue)
    cid = store.conversations.create()
    await run_turn(runner, cid, "what is it", "auto", (picture,), tools=[ReadFile()])
    [notice] = stored_notices(store, cid)
    assert notice.text.startswith(
        f"ollama:qwen2.5vl:3b answers at 127.0.0.1:{fake_ollama.port} (on this computer): "
    )
    assert "sees pictures and can use this chat's tools" in notice.text
    assert ledger(store.items(cid)) == []  # a model on this computer: nothing crossed
