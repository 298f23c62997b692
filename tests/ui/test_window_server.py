"""The window's server (app/ui/window_server.py) with real clients over real HTTP: closing
the window stops the turn it is serving and keeps it as stopped; a conversation served
while the window runs shows in the list at once, marked, opens like any chat (its answer
shown as it streams) and deletes like one; a served turn's tool call waits on the window's
approval card."""

from __future__ import annotations

import asyncio
from pathlib import Path

import openai
from openai.types.chat import ChatCompletionMessageParam
from PySide6.QtCore import QModelIndex, Qt
from pytestqt.qtbot import QtBot

from app.presenters.served_chats import DESCRIPTION
from app.presenters.serving_settings import ServingChoice
from app.store import Store
from app.ui.chat_list import ID_ROLE, SERVED_ROLE
from app.ui.session import Session
from routing.transcript import MessageStatus
from tests.app.serve.pictures import data_url, png
from tests.conftest import SightlineHome
from tests.servers.loopback import closed_port
from tests.servers.ollama import FakeOllama, Reply
from tests.ui.helpers import Run, close_session, rows

MODEL = "ollama:llama3.2:3b"


def serve(qtbot: QtBot, session: Session, *, tools: bool = False) -> openai.AsyncOpenAI:
    """Serving turned on as the Serving page turns it on; the official client pointed at it."""
    server = session.controller.serving
    server.choose(ServingChoice(True, closed_port(), tools))
    qtbot.waitUntil(lambda: server.status.on and not server.status.busy)
    status = server.status
    return openai.AsyncOpenAI(base_url=status.openai_url, api_key=status.token, max_retries=0)


COUNT = "one two three four five six seven"


def count_slowly(
    client: openai.AsyncOpenAI, fake_ollama: FakeOllama
) -> tuple[asyncio.Future[None], list[str]]:
    """A client asking for a slow, streamed answer: its request, and the words heard so far."""
    fake_ollama.enqueue(Reply(text=COUNT, chunk_chars=4, delay=0.4))
    heard: list[str] = []

    async def listen() -> None:
        stream = await client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "Count slowly"}], stream=True
        )
        async for chunk in stream:
            heard.append(chunk.choices[0].delta.content or "" if chunk.choices else "")

    return asyncio.ensure_future(listen()), heard


def test_closing_the_window_stops_the_served_turn_and_keeps_it_stopped(
    home: SightlineHome, session: Session, qtbot: QtBot, run: Run, fake_ollama: FakeOllama
) -> None:
    asking, heard = count_slowly(serve(qtbot, session), fake_ollama)
    qtbot.waitUntil(lambda: "".join(heard) != "")
    close_session(session, run)
    qtbot.waitUntil(asking.done)
    assert isinstance(asking.exception(), openai.APIError)  # the answer was cut off
    with Store.open(home.data) as store:
        [served] = store.conversations.list()
        answer = store.messages(served.id)[-1]
    assert answer.status is MessageStatus.STOPPED
    assert 0 < len(answer.text) < len(COUNT)


def test_a_served_chat_open_in_the_window_shows_its_answer_as_it_streams(
    session: Session, qtbot: QtBot, fake_ollama: FakeOllama
) -> None:
    asking, _heard = count_slowly(serve(qtbot, session), fake_ollama)
    answer = COUNT
    qtbot.waitUntil(lambda: served_row(session) is not None)
    open_served(qtbot, session)

    def shown_answer() -> str:
        shown = rows(session)
        return str(shown[-1]["text"]) if len(shown) > 1 else ""

    # Words appear while the client still waits: the chat is not shown only once it ends.
    qtbot.waitUntil(lambda: shown_answer() not in ("", answer), timeout=15_000)
    assert not asking.done() and answer.startswith(shown_answer())
    qtbot.waitUntil(asking.done, timeout=20_000)
    qtbot.waitUntil(lambda: shown_answer() == answer)


def test_deleting_a_served_chat_stops_its_turn_as_a_hang_up_does(
    session: Session, qtbot: QtBot, fake_ollama: FakeOllama
) -> None:
    asking, heard = count_slowly(serve(qtbot, session), fake_ollama)
    qtbot.waitUntil(lambda: "".join(heard) != "")
    index = served_row(session)
    assert index is not None
    chat = str(index.data(ID_ROLE))
    session.controller.chats.delete(chat)  # as the list's Delete does, Undo offered

    qtbot.waitUntil(asking.done, timeout=10_000)
    assert len("".join(heard)) < len(COUNT)
    answer = session.store.messages(chat)[-1]  # kept until the Undo runs out
    assert answer.status is MessageStatus.STOPPED
    session.controller.chats.undo()  # brought back, it shows the stopped answer
    assert session.store.conversations.get(chat) is not None


def picture_question(words: str) -> list[ChatCompletionMessageParam]:
    """A question with a picture, as a client sends it (a data URL)."""
    return [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": words},
                {"type": "image_url", "image_url": {"url": data_url(png("red"))}},
            ],
        }
    ]


def served_row(session: Session) -> QModelIndex | None:
    """The list's first served conversation, if it shows one."""
    model = session.window.sidebar.model
    rows = (model.index(row, 0) for row in range(model.rowCount()))
    return next((index for index in rows if index.data(SERVED_ROLE)), None)


def test_a_conversation_served_while_the_window_runs_is_listed_marked_opened_and_deleted(
    home: SightlineHome, session: Session, qtbot: QtBot, run: Run, fake_ollama: FakeOllama
) -> None:
    client = serve(qtbot, session)
    with Store.open(home.data) as store:  # one of the person's own, for contrast
        store.conversations.create(title="Trip to Lisbon")
    session.controller.chats.refresh()
    fake_ollama.enqueue(Reply(text="A red square.", delay=0.3))  # the looker's, taking its time
    asking = asyncio.ensure_future(
        client.chat.completions.create(model=MODEL, messages=picture_question("What colour is it?"))
    )
    # Listed as soon as it is stored, before its answer is done.
    qtbot.waitUntil(lambda: served_row(session) is not None)
    assert not asking.done()
    qtbot.waitUntil(asking.done, timeout=20_000)
    answer = asking.result().choices[0].message.content
    assert answer is not None and answer.startswith("You said: What colour is it?")
    index = served_row(session)
    assert index is not None
    # The app's name, and the mark beside it; the whole title where titles are edited.
    app_name = str(index.data(Qt.ItemDataRole.DisplayRole))
    assert app_name.startswith("AsyncOpenAI/Python") and index.data(SERVED_ROLE) == app_name
    assert index.data(Qt.ItemDataRole.EditRole) == f"Served to {app_name}"
    assert str(index.data(Qt.ItemDataRole.AccessibleTextRole)).startswith(
        f"{app_name}, served to another app, last used "
    )
    assert index.data(Qt.ItemDataRole.AccessibleDescriptionRole) == DESCRIPTION
    lisbon = session.window.sidebar.model.index(1, 0)
    assert lisbon.data(SERVED_ROLE) == "" and not lisbon.data(
        Qt.ItemDataRole.AccessibleDescriptionRole
    )
    # It opens like any chat: the client's question, what Sightline did, the answer.
    chat = open_served(qtbot, session)
    shown = rows(session)
    assert shown[0]["text"] == "What colour is it?" and shown[-1]["text"] == answer
    assert any(r["notice"] == "disclosure" for r in shown)  # who looked at the picture, where
    session.window.show_ledger(True)
    qtbot.waitUntil(lambda: len(session.window.ledger.rows()) == 1)
    assert "127.0.0.1" in session.window.ledger.rows()[0]  # it looked on this computer
    # And it is deleted like any chat.
    sidebar = session.window.sidebar
    sidebar.list.setFocus()
    qtbot.keyClick(sidebar.list, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: served_row(session) is None)
    session.controller.chats.finish_deleting()
    assert session.store.conversations.get(chat) is None


def open_served(qtbot: QtBot, session: Session) -> str:
    """Click the served conversation in the list, as a person does; its id."""
    index = served_row(session)
    assert index is not None
    sidebar = session.window.sidebar
    qtbot.mouseClick(
        sidebar.list.viewport(),
        Qt.MouseButton.LeftButton,
        pos=sidebar.list.visualRect(index).center(),
    )
    chat = str(index.data(ID_ROLE))
    qtbot.waitUntil(lambda: session.controller.current_id == chat)
    return chat


def test_a_served_turns_tool_call_waits_on_the_windows_approval_card(
    session: Session, qtbot: QtBot, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    client = serve(qtbot, session, tools=True)
    notes = tmp_path / "notes.txt"
    notes.write_text("Buy milk\n", encoding="utf-8")
    call = Reply(tool_calls=[{"name": "read_file", "arguments": {"path": str(notes)}}])
    fake_ollama.enqueue(call, Reply(text="You need milk."))
    asking = asyncio.ensure_future(
        client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "What do I need?"}]
        )
    )
    # The chat isn't the one shown: the window says who waits, for what, and where.
    status = session.window.statusBar()
    qtbot.waitUntil(lambda: "its request asks to run read_file" in status.currentMessage())
    assert status.currentMessage().startswith("AsyncOpenAI/Python")
    card = session.window.approving.card
    assert card.request is None
    offered = fake_ollama.chat_requests()[0]["tools"]
    assert {tool["function"]["name"] for tool in offered} == {"read_file", "screenshot"}
    chat = open_served(qtbot, session)
    qtbot.waitUntil(lambda: card.isVisible() and card.request is not None)
    assert card.request is not None and card.request.conversation_id == chat
    assert "read_file" in card.heading.text()
    qtbot.mouseClick(card.once_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(asking.done, timeout=20_000)
    assert asking.result().choices[0].message.content == "You need milk."
    # The open chat shows the whole turn once it ends: the call's result, then the answer.
    qtbot.waitUntil(lambda: rows(session)[-1]["text"] == "You need milk.")
    assert any(r["role"] == "tool" and "Buy milk" in r["text"] for r in rows(session))


def test_with_tools_off_a_served_turn_offers_none(
    session: Session, qtbot: QtBot, run: Run, fake_ollama: FakeOllama
) -> None:
    client = serve(qtbot, session)

    async def ask() -> str | None:
        answer = await client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "Hi"}]
        )
        return answer.choices[0].message.content

    assert run(ask()) == "You said: Hi"
    assert "tools" not in fake_ollama.chat_requests()[-1]


def test_new_settings_reach_the_turns_served_after_them(
    home: SightlineHome, session: Session, qtbot: QtBot, run: Run, fake_ollama: FakeOllama
) -> None:
    client = serve(qtbot, session)

    async def listed() -> set[str]:
        return {m.id async for m in client.models.list()}

    assert "again:llama3.2:3b" not in run(listed())
    with home.config.open("a", encoding="utf-8") as config:  # a second name for the same server
        config.write(
            f'\n[[providers]]\nid = "again"\nkind = "ollama"\nbase_url = "{fake_ollama.base_url}"\n'
        )
    run(session.controller.apply_settings())  # as Settings' Save does
    controller = session.controller
    qtbot.waitUntil(lambda: any(m.ref == "again:llama3.2:3b" for m in controller.listing.models))
    assert "again:llama3.2:3b" in run(listed())
    answer = run(
        client.chat.completions.create(
            model="again:llama3.2:3b", messages=[{"role": "user", "content": "Hi"}]
        )
    )
    assert answer.choices[0].message.content == "You said: Hi"
