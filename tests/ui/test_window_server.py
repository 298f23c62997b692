"""The window's server (app/ui/window_server.py) with real clients over real HTTP: closing
the window stops the turn it is serving and keeps it as stopped; a conversation served
while the window runs shows in the list at once, marked, opens like any chat and deletes
like one; a served turn's tool call waits on the window's approval card."""

from __future__ import annotations

import asyncio

import openai
from pytestqt.qtbot import QtBot

from app.presenters.serving_settings import ServingChoice
from app.store import Store
from app.ui.session import Session
from routing.transcript import MessageStatus
from tests.conftest import SightlineHome
from tests.servers.loopback import closed_port
from tests.servers.ollama import FakeOllama, Reply
from tests.ui.helpers import Run, close_session

MODEL = "ollama:llama3.2:3b"


def serve(qtbot: QtBot, session: Session, *, tools: bool = False) -> openai.AsyncOpenAI:
    """Serving turned on as the Serving page turns it on; the official client pointed at it."""
    server = session.controller.serving
    server.choose(ServingChoice(True, closed_port(), tools))
    qtbot.waitUntil(lambda: server.status.on and not server.status.busy)
    status = server.status
    return openai.AsyncOpenAI(base_url=status.openai_url, api_key=status.token, max_retries=0)


def test_closing_the_window_stops_the_served_turn_and_keeps_it_stopped(
    home: SightlineHome, session: Session, qtbot: QtBot, run: Run, fake_ollama: FakeOllama
) -> None:
    client = serve(qtbot, session)
    fake_ollama.enqueue(Reply(text="one two three four five six seven", chunk_chars=4, delay=0.4))
    heard: list[str] = []

    async def listen() -> None:
        stream = await client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "Count slowly"}], stream=True
        )
        async for chunk in stream:
            heard.append(chunk.choices[0].delta.content or "")

    asking = asyncio.ensure_future(listen())
    qtbot.waitUntil(lambda: "".join(heard) != "")
    close_session(session, run)
    qtbot.waitUntil(asking.done)
    assert isinstance(asking.exception(), openai.APIError)  # the answer was cut off
    with Store.open(home.data) as store:
        [served] = store.conversations.list()
        answer = store.messages(served.id)[-1]
    assert answer.status is MessageStatus.STOPPED
    assert 0 < len(answer.text) < len("one two three four five six seven")
