"""Background work: a failure logged, what still runs stopped as the window closes."""

from __future__ import annotations

import asyncio
import logging

import pytest

from app.ui.chores import Chores


async def test_a_chore_that_fails_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    async def broken() -> None:
        raise RuntimeError("the disk went away")

    with caplog.at_level(logging.ERROR, logger="app.ui.chores"):
        task = Chores().run(broken())
        await asyncio.wait([task])
        await asyncio.sleep(0)  # its end is told by a callback
    assert "a background task failed" in caplog.text
    assert "the disk went away" in caplog.text


async def test_stop_cancels_what_runs_and_waits_for_its_end() -> None:
    chores, ended = Chores(), []

    async def long() -> None:
        try:
            await asyncio.sleep(60)
        finally:
            ended.append("long")

    task = chores.run(long())
    await asyncio.sleep(0)
    await chores.stop()
    assert task.cancelled() and ended == ["long"]


async def test_cancel_tells_each_chore_without_waiting() -> None:
    chores = Chores()
    task = chores.run(asyncio.sleep(60))
    chores.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
