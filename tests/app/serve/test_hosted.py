"""The server hosted on a running loop (app/serve/hosted.py), as the window hosts it: the
official `openai` client answered on loopback with the data folder's token, a running turn
stopped (and stored as stopped) by `stop`, the port let go, and a port that is taken said
in plain words."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import openai
import pytest

from app.serve.bearer import TOKEN_FILE
from app.serve.hosted import Hosted, listen
from app.serve.served import Served
from app.serve.server import ServeProblem
from app.store import Store
from app.turn.runner import TurnRunner
from routing.catalogue import Catalogue
from routing.transcript import MessageStatus
from tests.servers.loopback import closed_port
from tests.servers.ollama import FakeOllama, Reply

MODEL = "ollama:llama3.2:3b"


def hosted(store: Store, catalogue: Catalogue, port: int) -> Hosted:
    served = Served(store, catalogue, TurnRunner(store, catalogue))
    return Hosted.start(served, store.path.parent, port, allow_tools=False)


def client(server: Hosted) -> openai.AsyncOpenAI:
    address = server.address
    return openai.AsyncOpenAI(base_url=address.openai_url, api_key=address.token, max_retries=0)


async def test_it_answers_on_loopback_and_stop_stops_the_running_turn(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    port = closed_port()
    server = hosted(store, catalogue, port)
    address = server.address
    assert (address.openai_url, address.ollama_url) == (
        f"http://127.0.0.1:{port}/v1",
        f"http://127.0.0.1:{port}",
    )
    assert address.token == (store.path.parent / TOKEN_FILE).read_text().strip()
    answer = await client(server).chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "Hi"}]
    )
    assert answer.choices[0].message.content == "You said: Hi"

    fake_ollama.enqueue(Reply(text="one two three four five six seven", chunk_chars=4, delay=0.3))
    stream = await client(server).chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "Count"}], stream=True
    )
    words = ""
    async for chunk in stream:
        words += chunk.choices[0].delta.content or ""
        if words:
            break
    await server.stop()
    assert not server.running
    with pytest.raises(openai.APIError):
        async for _chunk in stream:
            pass
    [counting] = [c for c in store.conversations.list() if "Count" in store.messages(c.id)[0].text]
    answered = store.messages(counting.id)[-1]
    assert answered.role == "assistant" and answered.status is MessageStatus.STOPPED
    listen(port).close()  # the port is free again


async def test_a_port_that_is_taken_is_a_problem_in_plain_words(
    store: Store, catalogue: Catalogue
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        with pytest.raises(ServeProblem) as refused:
            hosted(store, catalogue, port)
    assert str(refused.value) == (
        f"Port {port} is in use by another program (another Sightline or `sightline serve`, "
        "perhaps): choose another port."
    )


def test_a_token_file_that_is_a_folder_is_a_problem_too(
    tmp_path: Path, store: Store, catalogue: Catalogue
) -> None:
    (store.path.parent / TOKEN_FILE).mkdir()
    with pytest.raises(ServeProblem, match="is not a file"):
        hosted(store, catalogue, closed_port())


async def test_the_tools_box_lets_a_clients_tools_through_and_unticked_refuses_them(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    tool: Any = {"type": "function", "function": {"name": "get_time"}}
    asked: Any = [{"role": "user", "content": "Time?"}]
    served = Served(store, catalogue, TurnRunner(store, catalogue))
    refusing = hosted(store, catalogue, closed_port())
    with pytest.raises(openai.BadRequestError) as refused:
        await client(refusing).chat.completions.create(model=MODEL, messages=asked, tools=[tool])
    assert "Let served requests use Sightline's tools" in refused.value.message
    await refusing.stop()
    fake_ollama.enqueue(Reply(tool_calls=[{"name": "get_time", "arguments": {}}]))
    ticked = Hosted.start(served, store.path.parent, closed_port(), allow_tools=True)
    answer = await client(ticked).chat.completions.create(model=MODEL, messages=asked, tools=[tool])
    await ticked.stop()
    assert answer.choices[0].finish_reason == "tool_calls"
    calls = answer.choices[0].message.tool_calls or []
    assert [c.function.name for c in calls if c.type == "function"] == ["get_time"]
    assert len(calls) == 1
