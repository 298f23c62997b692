"""The qasync loop of `app.ui.qt_asyncio` (as the `qloop` fixture runs it) really runs asyncio
while pytest-qt waits."""

from __future__ import annotations

import asyncio

from pytestqt.qtbot import QtBot


def test_tasks_progress_while_qtbot_waits(qloop: asyncio.AbstractEventLoop, qtbot: QtBot) -> None:
    steps: list[int] = []

    async def counter() -> str:
        assert asyncio.get_running_loop() is qloop
        for step in range(5):
            await asyncio.sleep(0.01)
            steps.append(step)
        return "done"

    task = asyncio.ensure_future(counter())
    assert steps == []  # nothing runs until Qt's loop turns
    qtbot.waitUntil(lambda: len(steps) >= 2)
    assert not task.done() or steps == [0, 1, 2, 3, 4]
    qtbot.waitUntil(task.done)
    assert task.result() == "done"


def test_sockets_work_on_the_loop(qloop: asyncio.AbstractEventLoop, qtbot: QtBot) -> None:
    # Socket readiness comes through qasync's QSocketNotifiers: the path httpx uses.
    received: list[bytes] = []

    async def echo_once() -> None:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer.write(await reader.readline())
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"ping\n")
        received.append(await reader.readline())
        writer.close()
        server.close()
        await server.wait_closed()

    task = asyncio.ensure_future(echo_once())
    qtbot.waitUntil(task.done, timeout=5000)
    task.result()
    assert received == [b"ping\n"]
