"""Every request fits its model's window, through the set-up the window and `ask` use, a
real store and loopback servers that enforce a window as the real ones answer: llama.cpp's
server states it in /props, llama-cpp-python's stream past it ends empty (its 400 states
it only to a request that doesn't stream), and Ollama cuts a prompt's beginning silently
unless it is told the window to load."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.assembly import Assembly
from app.config import Config
from app.store import Store, StoredItem
from app.turn import context_fit
from app.turn.events import TurnEvent, UsageAdded
from app.turn.runner import TurnRunner
from app.turn.tool_step import DenyAll
from app.turn.turn_input import TurnInput
from routing.chat_settings import ChatSettings
from routing.context_window import ContextFrom, Overflow
from routing.errors import ContextTooLong
from routing.models import ProviderConfig
from routing.transcript import Message, TextPart, user_message
from routing.wires.base import ChatRequest
from routing.wires.ollama import OllamaWire
from tests.events import collect, ended, notices, stored_notices
from tests.pdfs import text_pdf
from tests.servers.ollama import FakeOllama
from tests.servers.openai_chat import ChatModel, FakeOpenAI
from vision.pdf import open_pdf

MODEL = "mine:gemma3-270m"
# A turn of about 150 tokens as the server counts them (four characters a token).
WORDS = "The quick brown fox jumps over the lazy dog. " * 13


def _upstream(props_window: int) -> FakeOpenAI:
    """Upstream llama.cpp's server holding 2,048 tokens, its /props saying `props_window`."""
    return FakeOpenAI(
        [ChatModel("gemma3-270m", context_length=props_window)],
        flavour="llamacpp",
        window=2048,
        window_shape="llama.cpp",
    )


@pytest.fixture
def llama_cpp() -> Iterator[FakeOpenAI]:
    """Upstream llama.cpp's server, run with a 2,048-token window (its /props says so)."""
    with _upstream(2048) as fake:
        yield fake


@pytest.fixture
def llama_cpp_python() -> Iterator[FakeOpenAI]:
    """llama-cpp-python's server with `--n_ctx 2048`: no /props, an empty 200 to a stream
    past the window."""
    with FakeOpenAI([ChatModel("gemma3-270m")], flavour="llamacpp", window=2048) as fake:
        yield fake


def _assembly(
    tmp_path: Path, provider: ProviderConfig, store: Store, **settings: object
) -> Assembly:
    config = Config(
        providers=(provider,),
        discover_local=False,
        data_dir=tmp_path / "data",
        **settings,  # type: ignore[arg-type]
    )
    return Assembly(config, store, environ={})


def _runner(assembly: Assembly) -> TurnRunner:
    return assembly.runner(assembly.catalogue(), assembly.tool_step(DenyAll()))


def _provider(server: FakeOpenAI) -> ProviderConfig:
    return ProviderConfig("mine", "custom", server.url)


async def _chat(runner: TurnRunner, cid: str, turns: int, model: str = MODEL) -> list[TurnEvent]:
    events: list[TurnEvent] = []
    for number in range(turns):
        events = await collect(
            runner.run(TurnInput(cid, f"Turn {number}: {WORDS}", requested_model=model))
        )
    return events


async def test_a_long_chat_keeps_going_within_the_window_the_server_states(
    tmp_path: Path, store: Store, llama_cpp: FakeOpenAI
) -> None:
    runner = _runner(_assembly(tmp_path, _provider(llama_cpp), store))
    cid = store.conversations.create()
    try:
        events = await _chat(runner, cid, 14)
        model = runner.catalogue.find(MODEL)
    finally:
        await runner.catalogue.aclose()
    assert model is not None and (model.context_length, model.context_from) == (
        2048,
        ContextFrom.SERVER,
    )
    assert ended(events).error is None and llama_cpp.refused_past_window == 0
    assert llama_cpp.counted > 0  # near the window, its /tokenize counted
    last = [r for r in llama_cpp.requests if r[1].endswith("/chat/completions")][-1][2]
    sent = [m["content"] for m in last["messages"]]
    assert sent[0].startswith("Turn 0:")  # the first message is kept
    assert sent[-1].startswith("Turn 13:")  # and the newest
    assert not any(text.startswith("Turn 1:") for text in sent)  # the oldest between left out
    assert llama_cpp.prompt_tokens(last) <= 2048
    told = [n.text for n in notices(events)]
    assert any(
        "earlier messages were left out of what mine:gemma3-270m saw: it holds about 2,048 "
        "tokens. The first message and the newest turns were kept." in text
        for text in told
    ), told
    # Leaving out sends less; nothing is lost: every turn is still in the chat.
    assert len(store.messages(cid)) == 28
    usage = [e for e in events if isinstance(e, UsageAdded)]
    assert usage and usage[-1].window == 2048


async def test_a_stream_that_ends_empty_past_the_window_is_told_as_the_window_learned_and_fitted(
    tmp_path: Path, store: Store, llama_cpp_python: FakeOpenAI
) -> None:
    """Nobody states the window, so requests are kept within the 4,096 default; past the real
    2,048 the stream ends empty. Asked once more without streaming, the server states its
    window: learned, kept in the store, and the turn asked again with what fits."""
    assembly = _assembly(tmp_path, _provider(llama_cpp_python), store)
    runner = _runner(assembly)
    cid = store.conversations.create()
    try:
        events = await _chat(runner, cid, 16)
    finally:
        await runner.catalogue.aclose()
    assert ended(events).error is None
    assert llama_cpp_python.refused_past_window >= 1
    assert llama_cpp_python.counted > 0  # its /extras/tokenize/count, once near the window
    assert store.learned.windows() == {MODEL: 2048}
    texts = [n.text for n in stored_notices(store, cid)]
    assert (
        "mine:gemma3-270m holds about 2,048 tokens, its server says: asked again with what fits."
        in texts
    )
    assert not any("cut off" in text for text in texts)
    # A restart keeps what was learned.
    again = assembly.catalogue()
    answer = await again.resolve(MODEL)
    await again.aclose()
    assert (answer.context_length, answer.context_from) == (2048, ContextFrom.LEARNED)


async def test_a_chat_set_to_stop_at_the_limit_stops_with_the_remedy(
    tmp_path: Path, store: Store, llama_cpp: FakeOpenAI
) -> None:
    runner = _runner(_assembly(tmp_path, _provider(llama_cpp), store))
    cid = store.conversations.create()
    store.conversations.set_settings(cid, ChatSettings(overflow=Overflow.STOP))
    try:
        events = await _chat(runner, cid, 14)
    finally:
        await runner.catalogue.aclose()
    error = ended(events).error
    assert isinstance(error, ContextTooLong)
    assert error.message == (
        "This chat no longer fits mine:gemma3-270m, which holds about 2,048 tokens, and it is "
        "set to stop at the limit, so nothing was sent. Start a new chat, or let it leave out "
        "earlier messages (the chat's settings)."
    )
    assert llama_cpp.refused_past_window == 0


async def test_a_message_larger_than_the_window_is_not_sent_and_says_why(
    tmp_path: Path, store: Store, llama_cpp: FakeOpenAI
) -> None:
    runner = _runner(_assembly(tmp_path, _provider(llama_cpp), store))
    cid = store.conversations.create()
    before = len(llama_cpp.requests)
    try:
        events = await collect(runner.run(TurnInput(cid, WORDS * 20, requested_model=MODEL)))
    finally:
        await runner.catalogue.aclose()
    error = ended(events).error
    assert isinstance(error, ContextTooLong) and "so nothing was sent" in error.message
    chats = [r for r in llama_cpp.requests[before:] if r[1].endswith("/chat/completions")]
    assert chats == []
    assert store.messages(cid)[-1].text == WORDS * 20  # the person's words are kept


async def test_ollama_is_always_told_the_window_and_the_prompt_s_beginning_always_fits(
    tmp_path: Path, store: Store, fake_ollama: FakeOllama
) -> None:
    """Ollama cuts a prompt longer than num_ctx from its beginning, silently: Sightline sends
    num_ctx (here the chat's own 1,024) and fits every request to it, so the system prompt
    and the first message are always there."""
    provider = ProviderConfig("ollama", "ollama", fake_ollama.base_url)
    runner = _runner(_assembly(tmp_path, provider, store, system_prompt="Answer in French."))
    cid = store.conversations.create()
    store.conversations.set_settings(cid, ChatSettings(context_length=1024))
    try:
        await _chat(runner, cid, 10, model="ollama:llama3.2:3b")
    finally:
        await runner.catalogue.aclose()
    assert fake_ollama.truncated == 0  # it never had to drop the prompt's beginning
    for body in fake_ollama.chat_requests():
        assert body["options"]["num_ctx"] == 1024
        messages = body["messages"]
        assert messages[0] == {"role": "system", "content": "Answer in French."}
        assert messages[1]["content"].startswith("Turn 0:")
        characters = sum(len(m["content"]) for m in messages)
        assert characters / 4 <= 1024  # within the window as the server counts


async def test_llama_cpp_s_refusal_states_its_window_which_is_learned_and_the_turn_fitted(
    tmp_path: Path, store: Store
) -> None:
    """/props says 4,096 but the server holds 2,048 (another slot size): its 400 carries n_ctx,
    and the same turn is asked again within it."""
    with _upstream(4096) as server:
        runner = _runner(_assembly(tmp_path, _provider(server), store))
        cid = store.conversations.create()
        try:
            events = await _chat(runner, cid, 12)
        finally:
            await runner.catalogue.aclose()
        assert ended(events).error is None and server.refused_past_window == 1
    assert store.learned.windows() == {MODEL: 2048}


def _report(secret_page: int, pages: int = 24) -> bytes:
    """A text PDF of `pages` pages of about 300 words each, one of which holds the answer."""
    filler = "\n".join(f"Line {n}: the quarterly figures were filed as usual." for n in range(28))
    texts = [f"Quarterly report\nPage {n}\n{filler}" for n in range(1, pages + 1)]
    texts[secret_page - 1] += "\nThe secret word is zebra."
    return text_pdf(texts)


async def test_a_pdf_that_does_not_fit_sends_its_first_page_and_those_that_answer(
    tmp_path: Path, store: Store, llama_cpp: FakeOpenAI
) -> None:
    """A 24-page PDF on a 2,048-token model: the first page and the page that answers the
    question go, the hint and a notice name the pages sent and the pages left."""
    report = open_pdf(_report(17), name="report.pdf")
    runner = _runner(_assembly(tmp_path, _provider(llama_cpp), store))
    cid = store.conversations.create()
    asked = TurnInput(cid, "What is the secret word?", requested_model=MODEL, pdfs=(report,))
    try:
        events = await collect(runner.run(asked))
    finally:
        await runner.catalogue.aclose()
    assert ended(events).error is None and llama_cpp.refused_past_window == 0
    sent = [r for r in llama_cpp.requests if r[1].endswith("/chat/completions")][-1][2]
    sent = sent["messages"][-1]["content"]
    assert "--- page 1 ---" in sent and "--- page 17 ---" in sent
    assert "The secret word is zebra." in sent
    assert "--- page 24 ---" not in sent  # not all of it: what room is left goes in order
    assert "does not fit whole, so pages 1" in sent and "Read them with read_file" in sent
    told = [n.text for n in notices(events)]
    assert any(
        text.startswith("report.pdf doesn't fit whole in what mine:gemma3-270m holds: pages 1")
        and "17" in text
        for text in told
    ), told


async def test_the_loopback_ollama_drops_a_prompt_s_beginning_past_num_ctx_as_ollama_does(
    fake_ollama: FakeOllama,
) -> None:
    """The double the test above relies on: a request not fitted loses its beginning."""
    wire = OllamaWire(ProviderConfig("ollama", "ollama", fake_ollama.base_url))
    messages = tuple(
        Message("user" if n % 2 == 0 else "assistant", (TextPart(f"{n} {WORDS}"),))
        for n in range(12)
    )
    request = ChatRequest(model="llama3.2:3b", messages=messages, context_length=512)
    try:
        await collect(wire.stream(request))
    finally:
        await wire.aclose()
    assert fake_ollama.truncated == 1


async def test_a_long_chat_reads_what_the_window_reaches_and_sends_what_the_whole_would(
    tmp_path: Path, store: Store, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 1,200-message chat to a 1,024-token window: the turn reads its first turn and the
    newest turns the window could reach, not the chat, and sends just what reading all of
    it sends; the notice counts every message left out, read or not."""
    provider = ProviderConfig("ollama", "ollama", fake_ollama.base_url)
    # A runner for each, so neither fits by what the server counted for the other.
    runner, other = (_runner(_assembly(tmp_path, provider, store)) for _ in range(2))
    model = "ollama:llama3.2:3b"
    chats = []
    for _ in range(2):  # the same chat twice
        cid = store.conversations.create()
        store.conversations.set_settings(cid, ChatSettings(context_length=1024))
        for n in range(600):
            store.add_message(cid, user_message(f"Turn {n}: {WORDS}"))
            store.add_message(cid, Message("assistant", (TextPart(f"Answer {n}."),), model=model))
        chats.append(cid)
    read: list[int] = []
    load = Store._load

    def counting(
        self: Store, db: sqlite3.Connection, where: str, *params: object
    ) -> list[StoredItem]:
        found = load(self, db, where, *params)
        read.append(len(found))
        return found

    monkeypatch.setattr(Store, "_load", counting)
    try:
        events = await collect(runner.run(TurnInput(chats[0], "And now?", requested_model=model)))
        read_recent = sum(read)
        monkeypatch.setattr(context_fit, "READ_MARGIN", 10**9)  # all of the chat read
        whole = await collect(other.run(TurnInput(chats[1], "And now?", requested_model=model)))
    finally:
        await runner.catalogue.aclose()
        await other.catalogue.aclose()
    assert ended(events).error is None and ended(whole).error is None
    recent_body, whole_body = fake_ollama.chat_requests()[-2:]
    assert recent_body["messages"] == whole_body["messages"]
    sent = [m["content"] for m in recent_body["messages"]]
    assert sent[0].startswith("Turn 0:") and sent[-1] == "And now?"
    assert len(sent) < 20 and read_recent < 100  # of 1,201 messages
    told = [n.text for n in notices(events)]
    assert told == [n.text for n in notices(whole)]
    assert any(f"{1201 - len(sent):,} earlier messages were left out" in text for text in told)
