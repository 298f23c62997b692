"""How `ask` prints: the streamed words in few writes, in order with its notices."""

from __future__ import annotations

import asyncio
import io

from app.cli.printers import PlainPrinter
from app.turn.events import TextAdded
from routing.transcript import Notice, NoticeKind


class Counted(io.StringIO):
    """A stream that says what had been flushed at each flush."""

    def __init__(self, log: list[str], name: str) -> None:
        super().__init__()
        self.log, self.name = log, name

    def flush(self) -> None:
        self.log.append(f"{self.name}:{self.getvalue()}")
        super().flush()


def test_words_that_arrive_together_are_flushed_once_the_loop_is_idle() -> None:
    log: list[str] = []
    out, err = Counted(log, "out"), Counted(log, "err")
    printer = PlainPrinter(out, err)

    async def stream() -> None:
        for n in range(100):  # as one read's chunks come: no wait between them
            printer.show(TextAdded(1, f"w{n} "))
        assert log == []  # not yet: the loop hasn't run
        await asyncio.sleep(0)
        assert log == ["out:" + "".join(f"w{n} " for n in range(100))]
        printer.show(TextAdded(1, "more"))
        await asyncio.sleep(0)

    asyncio.run(stream())
    assert len(log) == 2 and log[-1].endswith("w99 more")


def test_a_notice_follows_the_words_before_it() -> None:
    log: list[str] = []
    out, err = Counted(log, "out"), Counted(log, "err")
    printer = PlainPrinter(out, err)

    async def stream() -> None:
        printer.show(TextAdded(1, "Hello"))
        printer.show_notice(Notice(NoticeKind.INFO, "Described by a model that sees."))

    asyncio.run(stream())
    # The words reached stdout before the notice reached stderr.
    assert log[0] == "out:Hello"
    assert log[1].startswith("err:[info] Described by a model that sees.")


def test_without_a_loop_each_word_goes_out_at_once() -> None:
    log: list[str] = []
    printer = PlainPrinter(Counted(log, "out"), Counted(log, "err"))
    printer.show(TextAdded(1, "a"))
    printer.show(TextAdded(1, "b"))
    assert log == ["out:a", "out:ab"]


class LeftReader(io.StringIO):
    """A pipe whose reader has gone (`sightline ask … | head`)."""

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_reader_gone_during_a_later_flush_ends_the_turn_where_it_writes() -> None:
    printer = PlainPrinter(LeftReader(), io.StringIO())
    handled: list[dict[str, object]] = []

    async def stream() -> None:
        asyncio.get_running_loop().set_exception_handler(lambda _loop, c: handled.append(c))
        printer.show(TextAdded(1, "Hello"))
        await asyncio.sleep(0)  # the flush fails here, inside the loop
        printer.show(TextAdded(1, " again"))

    try:
        asyncio.run(stream())
    except BrokenPipeError:
        pass
    else:
        raise AssertionError("the next word did not end the turn")
    assert handled == []  # nothing for the loop's log: `sightline` ends quietly (exit 0)
