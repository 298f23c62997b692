"""Every model sees, end to end over loopback: who looks, heal and retry, takeover, budget,
disclosure and usage, counted at the servers; and no picture ever reaches a blind model.
"""

from __future__ import annotations

import asyncio
import base64
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.store import Store
from app.tools.read_file import ReadFile
from app.turn.events import TurnEvent, UsageAdded
from app.turn.runner import TurnRunner
from app.turn.sight import TurnSight
from app.turn.tool_step import AllowAll, ToolStep
from routing.catalogue import Catalogue
from routing.chat_settings import ChatSettings
from routing.describing.describer import Describer
from routing.describing.framing import TurnBudget, nobody_can_look, over_budget, unavailable
from routing.errors import PicturesRefused
from routing.models import ProviderConfig
from routing.presets import preset_for
from routing.router import RoutingPrefs
from routing.shaping import limits_for, shape_messages
from routing.transcript import (
    Message,
    NoticeKind,
    PagesPart,
    PicturePart,
    TextPart,
    ToolCall,
    ToolResult,
    user_message,
)
from routing.wires import anthropic, ollama, openai_chat
from routing.wires.base import ChatRequest
from tests.app.turn.engine_helpers import run_turn
from tests.conftest import SightlineHome
from tests.events import ended, stored_notices
from tests.pdfs import scanned_pdf
from tests.pictures import make_picture, named_picture, picture_bytes
from tests.servers.ollama import DEFAULT_MODELS, REFUSAL_OLD_RUNNER, FakeModel, FakeOllama, Reply
from tests.servers.openai_chat import ChatModel, FakeOpenAI
from tests.servers.openai_chat import Reply as OpenAIReply
from vision.pdf import open_pdf, read_pdf
from vision.pictures import Picture

SECRET = "zebra-7731"  # in a provider's error body only: must never reach a model
LOOKER = "ollama:qwen2.5vl:3b"  # the small seeing model of the loopback Ollama
BLIND_ONLY = [FakeModel("gemma3:270m", ("completion",)), FakeModel("llama3.2:3b", ("tools",))]


# -- helpers -----------------------------------------------------------------------


def runner(store: Store, catalogue: Catalogue, **kw: Any) -> TurnRunner:
    """A turn runner that allows every tool call."""
    return TurnRunner(store, catalogue, ToolStep(AllowAll()), **kw)


def checks_off(store: Store, catalogue: Catalogue) -> TurnRunner:
    """A turn runner that sends a model of unknown sight its pictures unchecked, so a
    refusal is what teaches Sightline (tests/app/turn/test_sight_check.py has the check)."""
    return runner(store, catalogue, prefs=RoutingPrefs(check_sight=False))


async def what_is_it(
    turns: TurnRunner, store: Store, model: str, picture: str
) -> tuple[str, list[TurnEvent]]:
    """Asks `model` "what?" in a new chat, with one picture named `picture` attached."""
    cid = store.conversations.create()
    return cid, await run_turn(turns, cid, "what?", model, (named_picture(picture),))


def last_user(body: dict[str, Any]) -> dict[str, Any]:
    """The last user message of a request body."""
    return [m for m in body["messages"] if m["role"] == "user"][-1]


def text_of(message: dict[str, Any]) -> str:
    """A message's words, as a string or OpenAI content parts."""
    content = message["content"]
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content)


def has_image_url(body: dict[str, Any]) -> bool:
    """Whether an OpenAI-shape body carries a picture."""
    return "image_url" in json.dumps(body)


def read_file_call(path: Path) -> Reply:
    """A reply that calls read_file on `path`."""
    return Reply(tool_calls=[{"name": "read_file", "arguments": {"path": str(path)}}])


# -- who looks -----------------------------------------------------------------------


async def test_the_chat_providers_small_seeing_model_looks(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue(Reply(text="A blue dot."), Reply(text="It is blue."))
    _cid, events = await what_is_it(
        runner(store, catalogue), store, "ollama:gemma3:270m", "dot.png"
    )
    assert ended(events).error is None
    looked, answered = fake_ollama.chat_requests()
    assert looked["model"] == "qwen2.5vl:3b" and len(last_user(looked)["images"]) == 1
    assert answered["model"] == "gemma3:270m" and "images" not in last_user(answered)
    assert "A blue dot." in last_user(answered)["content"]
    assert "not requests from the person" in last_user(answered)["content"]


async def test_a_vision_model_named_in_settings_looks_first(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    turns = runner(store, catalogue, prefs=RoutingPrefs(vision_model="ollama:llava:7b"))
    cid, _events = await what_is_it(turns, store, "ollama:gemma3:270m", "dot.png")
    assert [b["model"] for b in fake_ollama.chat_requests()] == ["llava:7b", "gemma3:270m"]
    [disclosure] = stored_notices(store, cid, NoticeKind.DISCLOSURE)
    assert "chosen in Settings" in disclosure.details


@pytest.mark.parametrize("order", [("b", "c"), ("c", "b")])
async def test_other_providers_look_in_the_persons_order(
    store: Store, order: tuple[str, str]
) -> None:
    servers = {
        "home": FakeOllama(list(BLIND_ONLY)),
        "b": FakeOllama([FakeModel("llava:7b", ("completion", "vision"))]),
        "c": FakeOllama([FakeModel("qwen2.5vl:3b", ("completion", "vision"))]),
    }
    for server in servers.values():
        server.start()
    try:
        configs = [
            ProviderConfig(name, "ollama", servers[name].base_url) for name in ("home", *order)
        ]
        catalogue = Catalogue(configs)
        cid, events = await what_is_it(
            runner(store, catalogue), store, "home:gemma3:270m", "dot.png"
        )
        await catalogue.aclose()
    finally:
        for server in servers.values():
            server.stop()
    assert ended(events).error is None
    first, second = order
    assert len(servers[first].chat_requests()) == 1  # the first other provider looked
    assert servers[second].chat_requests() == []
    [disclosure] = stored_notices(store, cid, NoticeKind.DISCLOSURE)
    assert disclosure.text.startswith(f"{first}:")
    assert f"at 127.0.0.1:{servers[first].port} looked at 1 picture" in disclosure.text


async def test_a_local_chat_never_sends_anything_to_the_cloud(store: Store, tmp_path: Path) -> None:
    cloud = FakeOpenAI([ChatModel("gpt-4o-mini", sees=True)], flavour="openai")
    local = FakeOllama(list(BLIND_ONLY))
    with cloud, local:
        catalogue = Catalogue(
            [
                ProviderConfig("oa", "openai", cloud.url, "sk-test", local=False),
                ProviderConfig("ollama", "ollama", local.base_url),
            ]
        )
        cid, events = await what_is_it(
            runner(store, catalogue), store, "ollama:gemma3:270m", "shot.png"
        )
        await catalogue.aclose()
        assert ended(events).error is None
        assert cloud.requests == []  # not a picture, not even a request for its model list
        [answered] = local.chat_requests()
        assert "images" not in last_user(answered)
        assert nobody_can_look(named_picture("shot.png")) in last_user(answered)["content"]
        assert "no model that can see" in last_user(answered)["content"]
    assert stored_notices(store, cid, NoticeKind.DISCLOSURE) == []
    # The person is told, once, and offered a model that sees on this computer.
    [nobody] = stored_notices(store, cid, NoticeKind.NOBODY_SEES)
    assert nobody.text.startswith("No model on this computer can see shot.png")
    assert "ollama:gemma3:270m was only told it is there" in nobody.text
    assert "Get a model that sees" in nobody.details
    assert nobody.crossed is None  # nothing went anywhere


async def test_a_cloud_chat_may_use_its_providers_seeing_model(store: Store) -> None:
    models = [ChatModel("text-only-7b", sees=False), ChatModel("gpt-4o-mini", sees=True)]
    with FakeOpenAI(models, flavour="openrouter") as cloud:
        catalogue = Catalogue(
            [ProviderConfig("or", "openrouter", cloud.url, "sk-or-test", local=False)]
        )
        cloud.enqueue(OpenAIReply(text="A chart of sales."), OpenAIReply(text="Sales rose."))
        _cid, events = await what_is_it(
            runner(store, catalogue), store, "or:text-only-7b", "chart.png"
        )
        await catalogue.aclose()
        looked, answered = cloud.chat_requests()
    assert ended(events).error is None
    assert looked["model"] == "gpt-4o-mini" and has_image_url(looked)
    assert answered["model"] == "text-only-7b" and not has_image_url(answered)
    assert "A chart of sales." in text_of(last_user(answered))


async def test_the_chats_own_model_never_looks(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    # llava is listed as seeing and named in Settings, but refuses: it must not then look.
    fake_ollama.enqueue(Reply(status=500, body={"error": REFUSAL_OLD_RUNNER}))
    turns = runner(store, catalogue, prefs=RoutingPrefs(vision_model="ollama:llava:7b"))
    _cid, events = await what_is_it(turns, store, "ollama:llava:7b", "dot.png")
    assert ended(events).error is None
    assert [b["model"] for b in fake_ollama.chat_requests()] == [
        "llava:7b",  # refused
        "qwen2.5vl:3b",  # looked
        "llava:7b",  # asked again, in words
    ]


# -- heal and retry ------------------------------------------------------------------


@pytest.fixture
def mystery_ollama() -> Iterator[FakeOllama]:
    """The loopback Ollama plus a model whose /api/show says nothing of its abilities."""
    models = [FakeModel(**vars(m)) for m in DEFAULT_MODELS] + [FakeModel("mystery:1b", ())]
    with FakeOllama(models) as server:
        yield server


async def ask_the_mystery_model(store: Store, server: FakeOllama) -> tuple[str, list[TurnEvent]]:
    """`ollama:mystery:1b` asked about dot.png in a new chat, its sight unchecked: the
    chat and the turn's events."""
    catalogue = Catalogue([ProviderConfig("ollama", "ollama", server.base_url)])
    cid = store.conversations.create()
    try:
        asked = checks_off(store, catalogue)
        dot = (named_picture("dot.png"),)
        return cid, await run_turn(asked, cid, "what?", "ollama:mystery:1b", dot)
    finally:
        await catalogue.aclose()


async def test_a_model_of_unknown_sight_that_refuses_is_healed_once(
    store: Store, mystery_ollama: FakeOllama, tmp_path: Path
) -> None:
    cid, events = await ask_the_mystery_model(store, mystery_ollama)
    assert ended(events).error is None
    tried, looked, retried = mystery_ollama.chat_requests()
    assert tried["model"] == "mystery:1b" and len(last_user(tried)["images"]) == 1
    assert looked["model"] == "qwen2.5vl:3b"
    assert retried["model"] == "mystery:1b"
    assert not any("images" in m for m in retried["messages"])
    assert '[Description of "dot.png"' in last_user(retried)["content"]
    [heal] = stored_notices(store, cid, NoticeKind.HEAL)
    assert "ollama:mystery:1b refused the pictures" in heal.text
    assert store.learned.blind() == {"ollama:mystery:1b"}
    assert store.messages(cid)[-1].status == "complete"
    with Store.open(tmp_path / "data") as reopened:  # learned for good, not for one run
        assert reopened.learned.blind() == {"ollama:mystery:1b"}


@pytest.mark.parametrize("flavour", ["openai", "llamacpp"])
async def test_an_openai_shape_refusal_is_healed_once(
    store: Store, fake_ollama: FakeOllama, flavour: str
) -> None:
    server = FakeOpenAI([ChatModel("mystery-7b", sees=False)], flavour=flavour)
    # A llama-server build from before /props said its modalities: sight unknown.
    server.props = lambda: {"model_alias": "mystery-7b", "total_slots": 1}  # type: ignore[method-assign]
    with server:
        catalogue = Catalogue(
            [
                ProviderConfig("mine", "custom", server.url),
                ProviderConfig("ollama", "ollama", fake_ollama.base_url),
            ]
        )
        cid, events = await what_is_it(
            checks_off(store, catalogue), store, "mine:mystery-7b", "dot.png"
        )
        await catalogue.aclose()
        tried, retried = server.chat_requests()
    assert ended(events).error is None
    assert has_image_url(tried) and not has_image_url(retried)
    assert '[Description of "dot.png"' in text_of(last_user(retried))
    assert [b["model"] for b in fake_ollama.chat_requests()] == ["qwen2.5vl:3b"]
    assert len(stored_notices(store, cid, NoticeKind.HEAL)) == 1
    assert store.learned.blind() == {"mine:mystery-7b"}


async def test_a_second_refusal_is_the_turns_error(
    store: Store, mystery_ollama: FakeOllama
) -> None:
    refusal = Reply(status=500, body={"error": REFUSAL_OLD_RUNNER})
    mystery_ollama.enqueue(refusal, Reply(text="A blue dot."), refusal)
    cid, events = await ask_the_mystery_model(store, mystery_ollama)
    assert isinstance(ended(events).error, PicturesRefused)
    assert len(mystery_ollama.chat_requests()) == 3
    assert [n.kind for n in stored_notices(store, cid) if n.kind != NoticeKind.DISCLOSURE] == [
        NoticeKind.HEAL,
        NoticeKind.ERROR,
    ]


async def test_a_refusal_after_words_were_shown_is_an_error_not_a_retry(
    store: Store, mystery_ollama: FakeOllama
) -> None:
    mystery_ollama.enqueue(Reply(text="Let me see", midstream_error=REFUSAL_OLD_RUNNER))
    cid, events = await ask_the_mystery_model(store, mystery_ollama)
    assert isinstance(ended(events).error, PicturesRefused)
    assert len(mystery_ollama.chat_requests()) == 1
    assert stored_notices(store, cid, NoticeKind.HEAL) == []
    assert [n.kind for n in stored_notices(store, cid)] == [NoticeKind.ERROR]
    assert store.learned.blind() == set()
    assert store.messages(cid)[-1].text == "Let me see"


# -- takeover ------------------------------------------------------------------------


async def test_auto_hands_the_turn_to_a_model_that_sees_a_tool_picture(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    chart = tmp_path / "chart.png"
    chart.write_bytes(picture_bytes("orange", (12, 8)))
    fake_ollama.enqueue(read_file_call(chart), Reply(text="An orange chart."))
    cid = store.conversations.create()
    events = await run_turn(
        runner(store, catalogue), cid, "what is in chart.png?", "auto", tools=[ReadFile()]
    )
    assert ended(events).error is None and ended(events).model_ref == LOOKER
    first, second = fake_ollama.chat_requests()  # no describing: the picture went as it is
    assert first["model"] == "llama3.2:3b" and first["tools"]
    assert second["model"] == "qwen2.5vl:3b" and second["tools"]
    assert second["messages"][-1]["images"] == [base64.b64encode(chart.read_bytes()).decode()]
    routing, handed, disclosure = stored_notices(store, cid)
    assert routing.kind == NoticeKind.ROUTING and routing.text.startswith("ollama:llama3.2:3b")
    assert handed.kind == NoticeKind.ROUTING
    assert handed.text.startswith(f"{LOOKER} now answers at 127.0.0.1:")
    assert disclosure.kind == NoticeKind.DISCLOSURE
    assert disclosure.text == (
        f"This turn's 1 picture now goes (chart.png) to {LOOKER} at "
        f"127.0.0.1:{fake_ollama.port} (on this computer)."
    )
    assert store.messages(cid)[-1].model == LOOKER


async def test_an_explicit_choice_keeps_its_model_and_the_picture_is_described(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    chart = tmp_path / "chart.png"
    chart.write_bytes(picture_bytes("orange", (12, 8)))
    fake_ollama.enqueue(
        read_file_call(chart), Reply(text="An orange rectangle."), Reply(text="Orange.")
    )
    cid = store.conversations.create()
    events = await run_turn(
        runner(store, catalogue), cid, "chart?", "ollama:llama3.2:3b", tools=[ReadFile()]
    )
    assert ended(events).error is None and ended(events).model_ref == "ollama:llama3.2:3b"
    asked, looked, answered = fake_ollama.chat_requests()
    assert (asked["model"], looked["model"], answered["model"]) == (
        "llama3.2:3b",
        "qwen2.5vl:3b",
        "llama3.2:3b",
    )
    assert not any("images" in m for m in answered["messages"])
    tool_message = next(m for m in answered["messages"] if m["role"] == "tool")
    assert '[Description of "chart.png"' in tool_message["content"]
    assert "An orange rectangle." in tool_message["content"]
    assert [n.kind for n in stored_notices(store, cid)] == [NoticeKind.DISCLOSURE]


# -- one budget for every kind of picture --------------------------------------------


async def test_attachments_and_tool_pictures_share_one_budget(
    catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    # TurnRunner makes its TurnSight with the default cap (8), so the cap is set here.
    await catalogue.refresh()
    blind = catalogue.find("ollama:gemma3:270m")
    assert blind is not None
    sight = TurnSight(
        catalogue, Describer(), RoutingPrefs(), chat_is_local=True, budget=TurnBudget(cap=2)
    )
    first, second, third = (named_picture(f"{n}.png", (n * 40, 0, 0)) for n in (1, 2, 3))
    messages: tuple[Message, ...] = (user_message("compare", (first, second)),)
    shaped = await sight.for_model(blind, messages)
    call = ToolCall("call_1", "read_file", {"path": "3.png"})
    result = ToolResult(call.id, "read_file", (TextPart("a picture"), PicturePart(third)))
    messages += (Message("assistant", (call,)), Message("tool", (result,)))
    again = await sight.for_model(blind, messages)
    assert len(fake_ollama.chat_requests()) == 2  # two described, the third not asked
    assert shaped.messages[0].text.count("[Description of") == 2
    assert over_budget(third, 2) in again.messages[-1].tool_results[0].text
    [disclosure] = shaped.notices
    assert "looked at 2 pictures (1.png, 2.png)" in disclosure.text
    [budget] = again.notices  # the person is told too, once
    assert budget.kind == NoticeKind.BUDGET
    assert budget.text.startswith("1 picture was not described for ollama:gemma3:270m (3.png)")
    assert (await sight.for_model(blind, messages)).notices == ()
    assert len(fake_ollama.chat_requests()) == 2


async def test_one_budget_spans_the_requests_of_a_turn(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    third = tmp_path / "3.png"
    third.write_bytes(picture_bytes((120, 0, 0), (8, 6)))
    fake_ollama.enqueue(
        Reply(text="A dark red tile."),
        Reply(text="A darker red tile."),
        read_file_call(third),
        Reply(text="Three red tiles."),
    )
    attached = (named_picture("1.png", (40, 0, 0)), named_picture("2.png", (80, 0, 0)))
    cid = store.conversations.create()
    events = await run_turn(
        runner(store, catalogue, turn_budget=2),
        cid,
        "compare",
        "ollama:llama3.2:3b",
        attached,
        tools=[ReadFile()],
    )
    assert ended(events).error is None
    models = [b["model"] for b in fake_ollama.chat_requests()]
    assert models == ["qwen2.5vl:3b", "qwen2.5vl:3b", "llama3.2:3b", "llama3.2:3b"]
    last = fake_ollama.chat_requests()[-1]
    tool_message = next(m for m in last["messages"] if m["role"] == "tool")
    assert (
        "was not described: this turn already had its 2 described pictures"
        in (tool_message["content"])
    )
    assert [n.kind for n in stored_notices(store, cid)] == [
        NoticeKind.DISCLOSURE,
        NoticeKind.BUDGET,
    ]


# -- disclosure and usage ------------------------------------------------------------


async def test_the_disclosure_says_who_looked_where_and_at_what(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    cid = store.conversations.create()
    attached = (named_picture("a.png", "red"), named_picture("b.png", "green"))
    await run_turn(runner(store, catalogue), cid, "compare", "ollama:gemma3:270m", attached)
    [disclosure] = stored_notices(store, cid, NoticeKind.DISCLOSURE)
    assert disclosure.text == (
        f"{LOOKER} at 127.0.0.1:{fake_ollama.port} looked at 2 pictures (a.png, b.png) and "
        "described them for ollama:gemma3:270m, which can't see."
    )
    assert "belongs to ollama" in disclosure.details
    # Notices are the person's, never the model's.
    assert all("looked at" not in json.dumps(b) for b in fake_ollama.chat_requests())


async def test_a_failed_look_is_disclosed_and_its_error_stays_out(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue(
        Reply(status=500, body={"error": f"llama runner crashed: {SECRET} /srv/blob"})
    )
    cid, events = await what_is_it(runner(store, catalogue), store, "ollama:gemma3:270m", "dot.png")
    assert ended(events).error is None  # one picture lost, not the turn
    looked, answered = fake_ollama.chat_requests()
    assert looked["model"] == "qwen2.5vl:3b"
    body = json.dumps(answered)
    assert SECRET not in body and "crashed" not in body and "/srv/blob" not in body
    assert unavailable(named_picture("dot.png")) in last_user(answered)["content"]
    [disclosure] = stored_notices(store, cid, NoticeKind.DISCLOSURE)
    assert "was sent 1 picture (dot.png)" in disclosure.text
    assert disclosure.text.endswith("it could not be described.")


async def test_the_lookers_tokens_count_for_the_turn(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue(
        Reply(text="A blue dot.", prompt_eval_count=300, eval_count=40),
        Reply(text="Blue.", prompt_eval_count=25, eval_count=3),
    )
    _cid, events = await what_is_it(
        runner(store, catalogue), store, "ollama:gemma3:270m", "dot.png"
    )
    usages = [e.usage for e in events if isinstance(e, UsageAdded)]
    assert sum(u.input_tokens for u in usages) == 325
    assert sum(u.output_tokens for u in usages) == 43


def test_ask_json_prints_the_disclosure(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    attached = tmp_path / "dot.png"
    attached.write_bytes(picture_bytes("blue", (8, 6)))
    done = subprocess.run(
        [
            *(sys.executable, "-m", "app", "ask", "--json"),
            *("--model", "ollama:gemma3:270m", "--attach", str(attached), "what is it"),
        ],
        env=home.env(),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[3],
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    [disclosure] = [x for x in lines if x["type"] == "notice" and x["kind"] == "disclosure"]
    where = f"127.0.0.1:{fake_ollama.port}"
    assert disclosure["text"].startswith(f"{LOOKER} at {where} looked at 1 picture")
    assert "(dot.png)" in disclosure["text"]
    assert lines[-1]["type"] == "done"
    with Store.open(home.data) as stored:
        conversation = lines[-1]["conversation"]
        kinds = [n.kind for n in stored_notices(stored, conversation)]
    assert kinds == [NoticeKind.DISCLOSURE]


# -- the property: no picture reaches a model that can't see -------------------------

POOL = [
    make_picture((n * 60, 255 - n * 50, 90), (6 + n, 5), label=f"pool{n}.png") for n in range(4)
]
# A scan attached as a PDF, and the rendered pages a read_file of another scan gave.
SCAN = open_pdf(scanned_pdf(2), name="scan.pdf")
_READ = read_pdf(scanned_pdf(1), name="read.pdf")
assert _READ.candidate is not None
PAGES = PagesPart.from_candidate("read.pdf", _READ.candidate, _READ.total_pages)
_SCAN_PAGES = read_pdf(SCAN).candidate
assert _SCAN_PAGES is not None
POOL_B64 = [
    base64.b64encode(p.data).decode() for p in (*POOL, *PAGES.pictures, *_SCAN_PAGES.pictures)
]
WIRE_PRESETS = ["openai", "mistral", "groq", "custom", "lmstudio", "ollama"]


@pytest.fixture(scope="module")
def lookers() -> Iterator[dict[str, FakeOllama]]:
    """Loopback Ollamas where a seeing model looks, where every look fails, and none looks."""
    servers = {
        "succeeds": FakeOllama(),
        "fails": FakeOllama(),
        "none": FakeOllama(list(BLIND_ONLY)),
    }
    for server in servers.values():
        server.start()
    # Each look answered with an error that names something only the provider knows.
    servers["fails"].enqueue(
        *[Reply(status=500, body={"error": f"out of memory: {SECRET}"})] * 5000
    )
    yield servers
    for server in servers.values():
        server.stop()


pictures_strategy = st.lists(st.sampled_from(range(len(POOL))), max_size=3)


@st.composite
def transcripts(draw: st.DrawFn) -> tuple[Message, ...]:
    """Several turns: words with 0-3 pictures and maybe a scanned PDF, tool steps with 0-2
    pictures each and maybe rendered PDF pages."""
    messages: list[Message] = []
    for turn in range(draw(st.integers(1, 3))):
        attached = tuple(POOL[i] for i in draw(pictures_strategy))
        pdfs = (SCAN,) if draw(st.booleans()) else ()
        messages.append(
            user_message(draw(st.sampled_from(["look", "", "and now?"])), attached, pdfs)
        )
        for step in range(draw(st.integers(0, 2))):
            calls = [
                ToolCall(f"call_{turn}_{step}_{n}", "screenshot", {"n": n})
                for n in range(draw(st.integers(1, 2)))
            ]
            messages.append(Message("assistant", tuple(calls)))
            results = tuple(
                ToolResult(
                    call.id,
                    call.name,
                    (
                        TextPart(f"screen {call.id}"),
                        *(
                            PicturePart(POOL[i])
                            for i in draw(st.lists(st.sampled_from(range(len(POOL))), max_size=2))
                        ),
                        *((PAGES,) if draw(st.booleans()) else ()),
                    ),
                    is_error=draw(st.booleans()),
                )
                for call in calls
            )
            messages.append(Message("tool", results))
        if draw(st.booleans()):
            messages.append(Message("assistant", (TextPart("Here is what I found."),)))
    return tuple(messages)


def pictures_in(body: Any) -> list[str]:
    """Every place in a request body that carries a picture (as the three shapes do)."""
    found: list[str] = []
    if isinstance(body, dict):
        for key, value in body.items():
            if key in ("images", "image_url", "source"):
                found.append(key)
            found += pictures_in(value)
        if body.get("type") in ("image", "image_url", "input_image", "document"):
            found.append(f"type={body['type']}")
    elif isinstance(body, list):
        for value in body:
            found += pictures_in(value)
    return found


async def _blind_request_bodies(server: FakeOllama, messages: tuple[Message, ...]) -> list[str]:
    """The JSON bodies every wire would send the blind model, each checked for pictures."""
    catalogue = Catalogue([ProviderConfig("ollama", "ollama", server.base_url)])
    try:
        await catalogue.refresh()
        blind = catalogue.find("ollama:gemma3:270m")
        assert blind is not None and blind.sees is False
        sight = TurnSight(catalogue, Describer(), RoutingPrefs(), chat_is_local=True)
        shaped = await sight.for_model(blind, messages)
    finally:
        await catalogue.aclose()
    bodies: list[dict[str, Any]] = []
    for kind in WIRE_PRESETS:
        preset = preset_for(kind)
        request = ChatRequest(
            "blind", shape_messages(shaped.messages, limits_for(preset.max_picture_side))
        )
        if kind == "ollama":
            bodies.append(ollama.build_chat_body(request))
        else:
            bodies.append(openai_chat.build_chat_body(request, preset))
    anthropic_request = ChatRequest("blind", shape_messages(shaped.messages, limits_for(1568)))
    bodies.append(anthropic.build_messages_body(anthropic_request))
    for body in bodies:
        assert pictures_in(body) == [], body
    return [json.dumps(b) for b in bodies]


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(messages=transcripts(), which=st.sampled_from(["succeeds", "fails", "none"]))
def test_no_picture_reaches_a_model_that_cant_see(
    lookers: dict[str, FakeOllama], messages: tuple[Message, ...], which: str
) -> None:
    for text in asyncio.run(_blind_request_bodies(lookers[which], messages)):
        assert not any(encoded in text for encoded in POOL_B64)
        assert SECRET not in text


# -- a long chat ---------------------------------------------------------------------


@pytest.mark.parametrize("read_all", [False, True])
async def test_a_picture_older_than_the_window_reaches_is_never_read(
    store: Store,
    catalogue: Catalogue,
    fake_ollama: FakeOllama,
    monkeypatch: pytest.MonkeyPatch,
    read_all: bool,
) -> None:
    """A 600-turn chat with a picture in its second turn, asked by a model that can't see,
    its window 1,024 tokens: the picture is far older than the window reaches, so its
    bytes are not even read from the store, and it goes nowhere. (Read whole, as a send
    read every chat before, the picture is read for a request that then leaves it out.)"""
    from app.store import parts
    from app.turn import context_fit

    if read_all:
        monkeypatch.setattr(context_fit, "READ_MARGIN", 10**9)
    cid = store.conversations.create()
    store.conversations.set_settings(cid, ChatSettings(context_length=1024))
    blind = "ollama:llama3.2:3b"
    for n in range(600):
        pictures = (named_picture("old-photo.png"),) if n == 1 else ()
        store.add_message(cid, user_message(f"Turn {n}: " + "words " * 60, pictures))
        store.add_message(cid, Message("assistant", (TextPart(f"Answer {n}."),), model=blind))
    read: list[str] = []
    picture = parts.Blobs.picture

    def reading(self: parts.Blobs, sha256: str, label: str = "") -> Picture | None:
        read.append(label)
        return picture(self, sha256, label)

    monkeypatch.setattr(parts.Blobs, "picture", reading)
    fake_ollama.enqueue(Reply(text="Fine."))
    events = await run_turn(runner(store, catalogue), cid, "And now?", blind)
    assert ended(events).error is None
    assert ("old-photo.png" in read) is read_all
    (answered,) = fake_ollama.chat_requests()  # nobody was asked to look
    assert "old-photo" not in json.dumps(answered)
    assert text_of(answered["messages"][0]).startswith("Turn 0:")
