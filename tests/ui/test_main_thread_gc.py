"""The cycle collector runs on the window's thread, never on a worker's."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from typing import ClassVar

import pytest
from pytestqt.qtbot import QtBot

from app.ui.main_thread_gc import MainThreadCollector

CYCLES = 5_000  # far past the youngest generation's threshold (700 by default)


class Node:
    """One end of a reference cycle, noting the thread that frees it."""

    freed_on: ClassVar[list[int]] = []

    def __init__(self) -> None:
        self.other: object = [self]

    def __del__(self) -> None:
        Node.freed_on.append(threading.get_ident())


@pytest.fixture
def collector() -> Iterator[MainThreadCollector]:
    Node.freed_on = []
    made = MainThreadCollector(interval_ms=10)
    yield made
    made.stop()


def test_garbage_a_worker_makes_is_freed_on_the_window_thread(
    collector: MainThreadCollector, qtbot: QtBot
) -> None:
    assert not gc.isenabled()

    def make_garbage() -> None:
        for _ in range(CYCLES):
            Node()  # unreachable at once, but only the cycle collector can free it

    worker = threading.Thread(target=make_garbage)
    worker.start()
    worker.join()
    assert Node.freed_on == []  # the worker passed every threshold and collected nothing
    qtbot.waitUntil(lambda: len(Node.freed_on) == CYCLES, timeout=10_000)
    assert set(Node.freed_on) == {threading.get_ident()}


def test_stopping_gives_collection_back_to_python(collector: MainThreadCollector) -> None:
    collector.stop()
    assert gc.isenabled()


def test_taken_over_from_a_start_it_gives_back_what_was_before_that_start() -> None:
    gc.disable()  # as `sightline`'s start holds it off (app/cli/start_collection.py)
    made = MainThreadCollector(interval_ms=10, was_enabled=True)
    made.stop()
    assert gc.isenabled()


def test_what_the_start_left_is_collected_once_then_frozen_until_stopped(
    collector: MainThreadCollector, qtbot: QtBot
) -> None:
    for _ in range(CYCLES):
        Node()  # the start's garbage
    # Collected at its first look, before the freeze: none of it pinned.
    qtbot.waitUntil(lambda: len(Node.freed_on) == CYCLES, timeout=10_000)
    assert gc.get_freeze_count() > 0
    collector.stop()
    assert gc.get_freeze_count() == 0
