"""An answer's stats: a small faded line under its card, measured in its height, read out.

The last test streams an answer from the loopback Ollama through the real window; the
others drive a view over a model of stored items directly.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QFontMetrics, QImage
from pytestqt.qtbot import QtBot

from app.store import StoredItem
from app.ui.conversation.conversation_model import ConversationModel, Role
from app.ui.conversation.conversation_view import ConversationView
from app.ui.conversation.message_rows import STATS_GAP, MessageLayout, MessageRows, stats_font
from app.ui.session import Session
from app.ui.theme import theme_for
from routing.answer_stats import AnswerStats
from routing.transcript import Message, MessageStatus, TextPart, user_message
from tests.conftest import SightlineHome
from tests.servers.ollama import FakeOllama, Reply
from tests.ui.helpers import stored_view

STATS = AnswerStats(12, 148, first_token_seconds=0.43, streaming_seconds=4.2)
LINE = "12 → 148 tokens · first word 0.4 s · 35 tok/s"
WORDS = "Sure: the sky is blue because air scatters blue light the most."


def answer(
    status: MessageStatus = MessageStatus.COMPLETE, stats: AnswerStats | None = STATS
) -> Message:
    return Message("assistant", (TextPart(WORDS),), "ollama:llama3.2:3b", status, stats)


def make_view(qtbot: QtBot, items: list[Message]) -> tuple[ConversationView, ConversationModel]:
    view, model = stored_view(qtbot, items)
    qtbot.waitUntil(lambda: view.measured_rows() == len(items))
    return view, model


def layout_of(view: ConversationView, model: ConversationModel, row: int) -> MessageLayout:
    """The row laid out exactly as the view lays it out (same option, same width)."""
    return MessageRows().layout(view.row_option(row), model.row(row), view.viewport().width())


def height_of(view: ConversationView, model: ConversationModel, row: int) -> int:
    return view.visualRect(model.index(row, 0)).height()


def line_height(view: ConversationView) -> int:
    option = view.row_option(0)  # kept: its font lives only as long as it does
    return STATS_GAP + QFontMetrics(stats_font(option.font)).height()


def test_a_finished_answer_shows_its_stats_under_its_card(qtbot: QtBot) -> None:
    view, model = make_view(
        qtbot, [user_message("Why is the sky blue?"), answer(), answer(stats=None)]
    )
    measured, unmeasured = layout_of(view, model, 1), layout_of(view, model, 2)
    assert measured.stats is not None and unmeasured.stats is None
    rect, said = measured.stats
    assert said == LINE
    assert rect.top() >= measured.card.bottom() and rect.left() >= measured.card.left()
    # Counted in the row's height, as the view places it: the same answer, one line taller.
    assert height_of(view, model, 1) == measured.height
    assert height_of(view, model, 1) - height_of(view, model, 2) == line_height(view)
    # And in the estimate a long chat opens with, before rows are laid out.
    guesses = MessageRows().estimate(view.row_option(-1), model, range(3), view.viewport().width())
    assert guesses[1] is not None and guesses[2] is not None
    assert guesses[1] - guesses[2] == line_height(view)


def test_the_line_is_painted_in_the_faded_colour(qtbot: QtBot) -> None:
    view, model = make_view(qtbot, [answer(), answer(stats=None)])
    shot = view.viewport().grab().toImage()
    measured = layout_of(view, model, 0)
    assert measured.stats is not None
    rect = measured.stats[0].translated(view.visualRect(model.index(0, 0)).topLeft())
    option = view.row_option(0)
    faded = theme_for(option.palette).faded
    assert _inked(shot, rect, faded) > 20
    # The answer without stats draws nothing there: below its card is the next row's gap.
    bare = layout_of(view, model, 1)
    below = QRect(rect.left(), bare.card.bottom() + 2, rect.width(), 4)
    below.translate(view.visualRect(model.index(1, 0)).topLeft())
    assert _inked(shot, below, faded) == 0


def test_nothing_shows_for_the_persons_message_or_an_answer_still_streaming(qtbot: QtBot) -> None:
    person = Message("user", (TextPart("Hello"),), stats=STATS)  # as no turn makes it
    streaming = answer(MessageStatus.STREAMING)
    view, model = make_view(qtbot, [person, streaming])
    assert layout_of(view, model, 0).stats is None
    assert layout_of(view, model, 1).stats is None
    assert "tokens" not in model.index(1, 0).data(Qt.ItemDataRole.AccessibleTextRole)


def test_the_line_joins_the_row_when_the_answer_finishes(qtbot: QtBot) -> None:
    view, model = make_view(qtbot, [answer(MessageStatus.STREAMING, stats=None)])
    before = height_of(view, model, 0)
    model.finish_item(StoredItem(1, "c", 1, 0.0, answer()))
    qtbot.waitUntil(lambda: height_of(view, model, 0) == before + line_height(view))
    assert layout_of(view, model, 0).stats is not None


def test_a_screen_reader_hears_the_stats_in_words(qtbot: QtBot) -> None:
    _view, model = make_view(qtbot, [answer(), answer(stats=AnswerStats(output_tokens=9))])
    read = model.index(0, 0).data(Qt.ItemDataRole.AccessibleTextRole)
    assert read.endswith(
        f"{WORDS}\n(12 tokens in, 148 out, first word after 0.4 seconds, 35 tokens a second)"
    )
    assert model.index(1, 0).data(Qt.ItemDataRole.AccessibleTextRole).endswith("\n(9 tokens out)")


def test_an_answer_streamed_in_the_window_gets_its_line_when_it_ends(
    home: SightlineHome, fake_ollama: FakeOllama, open_window: Callable[[], Session], qtbot: QtBot
) -> None:
    session = open_window()
    qtbot.waitUntil(lambda: len(session.window.picker.models()) == 4, timeout=10_000)
    fake_ollama.enqueue(Reply(text="Blue, mostly.", delay=0.03, prompt_eval_count=9, eval_count=5))
    edit = session.window.composer.edit
    edit.setFocus()
    qtbot.keyClicks(edit, "Why is the sky blue?")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not session.controller.busy, timeout=10_000)
    view, model = session.window.view, session.window.conversation
    [row] = [
        r
        for r in range(model.rowCount())
        if model.index(r, 0).data(Role.MESSAGE_ROLE) == "assistant"
    ]
    laid = layout_of(view, model, row)
    assert laid.stats is not None
    assert laid.stats[1].startswith("9 → 5 tokens · first word 0.")
    assert height_of(view, model, row) == laid.height
    said = model.index(row, 0).data(Qt.ItemDataRole.AccessibleTextRole)
    assert "(9 tokens in, 5 out, first word after" in said


def _inked(image: QImage, rect: QRect, colour: QColor) -> int:
    """How many pixels inside `rect` are near `colour` (text drawn in it, anti-aliasing aside)."""
    ratio = image.devicePixelRatio()
    found = 0
    for y in range(int(rect.top() * ratio), int(rect.bottom() * ratio)):
        for x in range(int(rect.left() * ratio), int(rect.right() * ratio)):
            pixel = image.pixelColor(x, y)
            near = (
                abs(pixel.red() - colour.red())
                + abs(pixel.green() - colour.green())
                + abs(pixel.blue() - colour.blue())
            )
            found += near < 60
    return found
