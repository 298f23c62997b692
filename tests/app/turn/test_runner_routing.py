"""Routing end to end over loopback: offline fallback, Auto with pictures, every choice noticed."""

from __future__ import annotations

import io
from contextlib import aclosing

from PIL import Image

from app.ledger import ledger
from app.store import Store
from app.turn.events import TurnEnded, TurnEvent
from app.turn.runner import TurnRunner
from app.turn.turn_input import TurnInput
from routing.catalogue import Catalogue
from routing.errors import CannotConnect
from routing.models import ProviderConfig
from routing.transcript import Notice, NoticeKind
from tests.servers.loopback import closed_port
from tests.servers.ollama import FakeOllama
from tests.servers.openai_chat import FakeOpenAI
from vision.pictures import sniff


async def run(runner: TurnRunner, cid: str, text: str, model: str, **kw: object) -> list[TurnEvent]:
    async with aclosing(runner.run(TurnInput(cid, text, requested_model=model, **kw))) as events:  # type: ignore[arg-type]
        return [e async for e in events]


def notices(store: Store, cid: str) -> list[Notice]:
    return [i.item for i in store.items(cid) if isinstance(i.item, Notice)]


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
    events = await run(runner, cid, "hello", "oa:gpt-4o")
    await catalogue.aclose()
    assert isinstance(events[-1], TurnEnded) and events[-1].error is None
    [notice] = notices(store, cid)
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
    await run(runner, cid, "first", "oa:gpt-4o-mini")  # listed and answered
    server.stop()  # then the connection goes
    events = await run(runner, cid, "second", "oa:gpt-4o-mini")
    await catalogue.aclose()
    assert isinstance(events[-1], TurnEnded) and events[-1].error is None
    assert "can't be reached" in notices(store, cid)[-1].text
    assert store.messages(cid)[-1].text == "You said: second"


async def test_nothing_reachable_is_the_turns_error(store: Store) -> None:
    cloud = ProviderConfig(
        "oa", "openai", f"http://127.0.0.1:{closed_port()}/v1", "sk-x", local=False
    )
    down = ProviderConfig("ollama", "ollama", f"http://127.0.0.1:{closed_port()}")
    catalogue = Catalogue([cloud, down])
    runner = TurnRunner(store, catalogue)
    cid = store.conversations.create()
    events = await run(runner, cid, "hello", "oa:gpt-4o")
    await catalogue.aclose()
    ended = events[-1]
    assert isinstance(ended, TurnEnded) and isinstance(ended.error, CannotConnect)
    assert [n.kind for n in notices(store, cid)] == [NoticeKind.ERROR]


async def test_auto_with_a_picture_and_tools_picks_the_local_model_that_has_both(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    from app.tools.read_file import ReadFile

    buffer = io.BytesIO()
    Image.new("RGB", (6, 6), "green").save(buffer, format="PNG")
    picture = sniff(buffer.getvalue(), "leaf.png")
    runner = TurnRunner(store, catalogue)
    cid = store.conversations.create()
    await run(runner, cid, "what is it", "auto", pictures=(picture,), tools=[ReadFile()])
    [notice] = notices(store, cid)
    assert notice.text.startswith(
        f"ollama:qwen2.5vl:3b answers at 127.0.0.1:{fake_ollama.port} (on this computer): "
    )
    assert "sees pictures and can use this chat's tools" in notice.text
    assert ledger(store.items(cid)) == []  # a model on this computer: nothing crossed
