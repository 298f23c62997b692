"""The data boundary holds whichever way the answering model changes within a turn.

A matrix over every way a turn's pictures can reach a model other than the one the
person chose (offline fallback, takeover, heal, the describer, PDF transcription,
tool pictures) × (a chat on this computer, a chat in the cloud) × (whether Auto may
use the cloud). Two loopback servers configured `local = false` stand for the
cloud and record every request; a vision model of the cloud is named in Settings
in every case, the most tempting path for a local chat's pictures. The checks:
no picture reaches a cloud recorder from a turn answered on this computer, nor
from a takeover unless Auto may use the cloud; and every picture that does reach
a model other than the person's choice has a disclosure notice naming it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from app.ledger import ledger
from app.store import Store
from app.turn.boundary import EarlierPictures
from app.turn.events import TurnEnded
from app.turn.runner import TurnRunner
from app.turn.tool_step import AllowAll, ToolStep
from routing.catalogue import Catalogue
from routing.models import ProviderConfig
from routing.router import RoutingPrefs
from routing.transcript import Notice, PicturePart, ToolCall, ToolResult
from routing.wires.base import ToolSpec
from tests.app.turn.engine_helpers import run_turn
from tests.events import ended, stored_notices
from tests.pdfs import scanned_pdf, text_pdf
from tests.pictures import make_picture
from tests.servers.loopback import closed_port
from tests.servers.ollama import REFUSAL_LLAMA_CPP, FakeModel, FakeOllama
from tests.servers.ollama import Reply as OllamaReply
from tests.servers.openai_chat import REFUSALS, ChatModel, FakeOpenAI, Reply
from vision.pdf import PdfFile, open_pdf
from vision.pictures import Picture

SCENARIOS = ("fallback", "takeover", "heal", "describer", "pdf_transcription", "tool_pictures")
VISION_IN_THE_CLOUD = "cloud_a:vision-1"


def holiday(colour: str = "red", label: str = "holiday.png") -> Picture:
    """The person's picture (or a tool's): small, of one colour."""
    return make_picture(colour, (24, 16), label=label)


class Snapshot:
    """A tool that returns a picture, as a screenshot does."""

    spec = ToolSpec("snap", "Take a picture of the screen.")

    async def run(self, call: ToolCall) -> ToolResult:
        """One small picture."""
        picture = holiday("blue", "screen.png")
        return ToolResult(call.id, call.name, (PicturePart(picture),))


@dataclass
class Setup:
    """One cell of the matrix: who is configured, what the person asks, what may cross."""

    providers: list[ProviderConfig]
    requested: str
    pictures: tuple[Any, ...] = ()
    pdfs: tuple[PdfFile, ...] = ()
    tools: list[Any] = field(default_factory=list)
    answered_here: bool = True  # the turn ends up answered on this computer
    expect_crossing: bool = False  # a picture is expected to reach the cloud (disclosed)
    expect_error: bool = False


@pytest.fixture
def servers() -> Iterator[tuple[FakeOllama, FakeOpenAI, FakeOpenAI]]:
    """A local Ollama with one blind model and two cloud recorders (seeing and blind models)."""
    ollama = FakeOllama(models=[FakeModel("llama3.2:3b", ("completion", "tools"))])
    cloud_a = FakeOpenAI(
        [ChatModel("text-1", sees=False), ChatModel("vision-1", sees=True)], flavour="openrouter"
    )
    cloud_b = FakeOpenAI(
        [ChatModel("text-1", sees=False), ChatModel("vision-1", sees=True)], flavour="openrouter"
    )
    for server in (ollama, cloud_a, cloud_b):
        server.start()
    yield ollama, cloud_a, cloud_b
    for server in (ollama, cloud_a, cloud_b):
        server.stop()


def _cloud(provider_id: str, server: FakeOpenAI) -> ProviderConfig:
    return ProviderConfig(provider_id, "openrouter", server.url, "sk-or-test", local=False)


def _setup(
    scenario: str,
    chat: str,
    allow_cloud: bool,
    ollama: FakeOllama,
    cloud_a: FakeOpenAI,
    cloud_b: FakeOpenAI,
) -> Setup:
    local = ProviderConfig("ollama", "ollama", ollama.base_url)
    clouds = [_cloud("cloud_a", cloud_a), _cloud("cloud_b", cloud_b)]
    picture = (holiday(),)
    if scenario == "fallback":
        if chat == "local":  # the chosen local server is down: another local one answers
            down = ProviderConfig("ollama2", "ollama", f"http://127.0.0.1:{closed_port()}")
            return Setup([down, local, *clouds], "ollama2:llava:7b", picture)
        # The chosen cloud provider listed its models, then stops answering.
        return Setup([*clouds, local], "cloud_b:vision-1", picture)
    if scenario == "takeover":
        if chat == "local":  # Auto picks the blind local model; nobody on this computer sees
            return Setup([local, *clouds], "auto", picture)
        # Nothing local; Auto (if it may) picks a blind cloud model, whose tool brings a picture.
        # text-1 is listed first: Auto's first pick with tools is blind.
        cloud_a.enqueue(Reply(tool_calls=[{"name": "snap", "arguments": {}}]))
        return Setup(
            clouds,
            "auto",
            tools=[Snapshot()],
            answered_here=False,
            expect_crossing=allow_cloud,
            expect_error=not allow_cloud,
        )
    if scenario == "heal":
        if chat == "local":  # a local model said to see refuses the picture
            ollama.models[:] = [FakeModel("llava:7b", ("completion", "vision"))]
            ollama.enqueue(OllamaReply(status=500, body={"error": REFUSAL_LLAMA_CPP}))
            return Setup([local, *clouds], "ollama:llava:7b", picture)
        status, body = REFUSALS["openrouter"]
        cloud_b.enqueue(Reply(status=status, body=body))
        return Setup(
            [*clouds, local], "cloud_b:vision-1", picture, answered_here=False, expect_crossing=True
        )
    blind_here, blind_there = "ollama:llama3.2:3b", "cloud_b:text-1"
    if scenario == "describer":
        if chat == "local":
            return Setup([local, *clouds], blind_here, picture)
        return Setup(
            [*clouds, local], blind_there, picture, answered_here=False, expect_crossing=True
        )
    if scenario == "pdf_transcription":
        scan = (open_pdf(scanned_pdf(1), name="scan.pdf"),)
        if chat == "local":
            return Setup([local, *clouds], blind_here, pdfs=scan)
        return Setup(
            [*clouds, local], blind_there, pdfs=scan, answered_here=False, expect_crossing=True
        )
    assert scenario == "tool_pictures"
    call = [{"name": "snap", "arguments": {}}]
    if chat == "local":
        ollama.enqueue(OllamaReply(tool_calls=call))
        return Setup([local, *clouds], blind_here, tools=[Snapshot()])
    cloud_b.enqueue(Reply(tool_calls=call))
    return Setup(
        [*clouds, local], blind_there, tools=[Snapshot()], answered_here=False, expect_crossing=True
    )


def _carries_pictures(body: dict[str, Any]) -> bool:
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, list) and any(
            isinstance(p, dict) and p.get("type") == "image_url" for p in content
        ):
            return True
    return False


@pytest.mark.parametrize("allow_cloud", [False, True], ids=["auto-local-only", "auto-may-cloud"])
@pytest.mark.parametrize("chat", ["local", "cloud"])
@pytest.mark.parametrize("scenario", SCENARIOS)
async def test_no_picture_crosses_unless_the_rules_allow_and_every_crossing_is_told(
    store: Store,
    servers: tuple[FakeOllama, FakeOpenAI, FakeOpenAI],
    scenario: str,
    chat: str,
    allow_cloud: bool,
) -> None:
    ollama, cloud_a, cloud_b = servers
    setup = _setup(scenario, chat, allow_cloud, ollama, cloud_a, cloud_b)
    catalogue = Catalogue(setup.providers)
    if scenario == "fallback" and chat == "cloud":
        await catalogue.refresh(["cloud_b"])
        cloud_b.stop()  # listed, then refuses connections
    runner = TurnRunner(
        store,
        catalogue,
        ToolStep(AllowAll()),
        prefs=RoutingPrefs(auto_may_use_cloud=allow_cloud, vision_model=VISION_IN_THE_CLOUD),
    )
    cid = store.conversations.create()
    ending = ended(
        await run_turn(
            runner,
            cid,
            "what is this?",
            setup.requested,
            setup.pictures,
            tools=setup.tools,
            pdfs=setup.pdfs,
        )
    )
    await catalogue.aclose()

    assert (ending.error is not None) == setup.expect_error, ending.error
    notices = stored_notices(store, cid)
    hosts = {"cloud_a": f"127.0.0.1:{cloud_a.port}", "cloud_b": f"127.0.0.1:{cloud_b.port}"}
    crossings: list[tuple[str, str]] = []
    for provider_id, server in (("cloud_a", cloud_a), ("cloud_b", cloud_b)):
        for body in server.chat_requests():
            if _carries_pictures(body):
                crossings.append((f"{provider_id}:{body['model']}", hosts[provider_id]))
    if setup.answered_here:
        # A turn answered on this computer sends nothing off it: not a picture, not a word.
        assert not cloud_a.chat_requests() and not cloud_b.chat_requests()
        assert ending.model_ref.startswith("ollama:") or ending.error
    assert bool(crossings) == setup.expect_crossing, crossings
    told = {
        (n.crossed.model, n.crossed.host)
        for n in notices
        if n.crossed is not None and not n.crossed.local
    }
    for ref, host in crossings:
        if ref != setup.requested:  # the person's own choice is not a crossing to tell
            assert (ref, host) in told, (ref, host, notices)


# -- earlier pictures that stayed on this computer, when the chat moves to the cloud ---


@dataclass
class Moving:
    """A chat that starts with a seeing model on this computer and moves to one off it."""

    store: Store
    runner: TurnRunner
    ollama: FakeOllama
    cloud: FakeOpenAI
    cid: str

    async def turn(
        self,
        text: str,
        model: str,
        pictures: tuple[Picture, ...] = (),
        pdfs: tuple[PdfFile, ...] = (),
    ) -> TurnEnded:
        """One turn of this chat: how it ended."""
        return ended(await run_turn(self.runner, self.cid, text, model, pictures, pdfs=pdfs))

    def told(self) -> list[Notice]:
        """The notices that record a crossing."""
        items = self.store.items(self.cid)
        return [i.item for i in items if isinstance(i.item, Notice) and i.item.crossed]


@pytest.fixture
async def moving(store: Store) -> AsyncIterator[Moving]:
    """A local Ollama whose model sees, a cloud recorder whose model sees, and a new chat."""
    ollama = FakeOllama(models=[FakeModel("llava:7b", ("completion", "vision"))])
    cloud = FakeOpenAI([ChatModel("vision-1", sees=True)], flavour="openrouter")
    with ollama, cloud:
        catalogue = Catalogue(
            [ProviderConfig("ollama", "ollama", ollama.base_url), _cloud("cloud", cloud)]
        )
        yield Moving(
            store, TurnRunner(store, catalogue), ollama, cloud, store.conversations.create()
        )
        await catalogue.aclose()


HERE, THERE = "ollama:llava:7b", "cloud:vision-1"


async def test_a_local_chats_earlier_picture_going_to_the_cloud_is_disclosed_once(
    moving: Moving,
) -> None:
    picture = holiday()
    await moving.turn("what is this?", HERE, pictures=(picture,))
    assert moving.store.crossings.sent_away(moving.cid) == set()  # seen on this computer only
    first = await moving.turn("and now?", THERE)
    second = await moving.turn("once more", THERE)
    assert first.error is None and second.error is None
    [notice] = moving.told()
    assert notice.text.startswith(
        f"1 picture (holiday.png) from earlier in this chat now goes to {THERE} at "
        f"127.0.0.1:{moving.cloud.port}, off this computer"
    )
    items = moving.store.items(moving.cid)
    assert ledger(items)[0].what == "1 picture (holiday.png) from earlier turns"
    assert all(_carries_pictures(body) for body in moving.cloud.chat_requests())  # it did go
    assert moving.store.crossings.sent_away(moving.cid) == {picture.sha256}


async def test_withheld_earlier_pictures_stay_and_leave_a_line(moving: Moving) -> None:
    report = open_pdf(text_pdf(["Salary review: confidential."]), name="review.pdf")
    picture = holiday()
    moving.ollama.enqueue(OllamaReply(text="Seen."))  # not an echo: the answer stays out of this
    await moving.turn("look", HERE, pictures=(picture,), pdfs=(report,))
    moving.store.crossings.set_earlier_pictures(moving.cid, EarlierPictures.WITHHOLD)
    ending = await moving.turn("and now?", THERE)
    assert ending.error is None
    [body] = moving.cloud.chat_requests()
    assert not _carries_pictures(body)
    sent = json.dumps(body)
    assert "Salary review" not in sent
    assert "[A picture (holiday.png) was here; it stays on the person's computer.]" in sent
    assert "[A PDF (review.pdf) was here; it stays on the person's computer.]" in sent
    assert moving.told() == [] and moving.store.crossings.sent_away(moving.cid) == set()


async def test_an_earlier_pdf_read_as_text_by_the_cloud_is_disclosed(moving: Moving) -> None:
    report = open_pdf(text_pdf(["Salary review: confidential."]), name="review.pdf")
    await moving.turn("summarise", HERE, pdfs=(report,))
    await moving.turn("and now?", THERE)
    assert "Salary review" in json.dumps(moving.cloud.chat_requests()[0])
    [notice] = moving.told()
    assert notice.text.startswith("1 PDF (review.pdf) from earlier in this chat now goes to")
