"""Markdown rendering without a window: fences found as CommonMark reads them, code kept exactly."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFont, QGuiApplication, QPalette
from pytestqt.qtbot import QtBot

from app.ui.conversation import highlight as lexers
from app.ui.conversation.highlight import MAX_CHARS, build_wanted, highlight, lexer_for, wanted
from app.ui.conversation.markdown import find_fences, render
from app.ui.theme import PYGMENTS_LIGHT, theme_for


@pytest.fixture
def no_lexers(monkeypatch: pytest.MonkeyPatch) -> None:
    """As in a new run: no lexer built, none wanted."""
    monkeypatch.setattr(lexers, "_lexers", type(lexers._lexers)(maxsize=64))
    monkeypatch.setattr(lexers, "_wanted", set())


def _light() -> QPalette:
    return QPalette(QGuiApplication.palette())


def test_fences_are_found_as_commonmark_reads_them() -> None:
    text = "\n".join(
        [
            "Intro",
            "````md",  # a longer fence: a shorter one inside is code
            "```",
            "inner",
            "````",
            "~~~sh  extra words",
            "ls",
            "~~~",
            "``` a`b",  # a backtick in a backtick fence's info: not a fence
            "1. step",
            "   ```bash",  # inside a list item: its indent is not code
            "   make  all",
            "   ```",
            "```python",
            "still open",
            "",
        ]
    )
    fences = find_fences(text)
    assert [(f.language, f.code, f.closed) for f in fences] == [
        ("md", "```\ninner", True),
        ("sh", "ls", True),
        ("bash", "make  all", True),
        ("python", "still open", False),  # the text's last newline is no extra line
    ]
    assert find_fences("no code at all") == []


def test_code_waits_plain_for_its_lexer_and_is_coloured_once_it_is_built(
    qtbot: QtBot, no_lexers: None
) -> None:
    text = "Look:\n\n```python\nx = 1\n```\n\nand\n\n```js\nlet y = 2\n```"
    theme = theme_for(_light())
    first = render(text, _font(), theme)
    first.document.setTextWidth(500)
    assert [b.highlighted for b in first.code_blocks()] == [False, False]
    assert wanted() and len(lexers._lexers) == 0  # no lexer built while laying the words out
    assert build_wanted() and not wanted()
    again = render(text, _font(), theme)
    again.document.setTextWidth(500)
    assert [b.highlighted for b in again.code_blocks()] == [True, True]
    assert [b.code for b in again.code_blocks()] == [b.code for b in first.code_blocks()]


def test_a_language_pygments_does_not_know_is_wanted_once_and_stays_plain(
    qtbot: QtBot, no_lexers: None
) -> None:
    rendered = render("```no-such-language\nx\n```", _font(), theme_for(_light()))
    rendered.document.setTextWidth(400)
    assert [b.highlighted for b in rendered.code_blocks()] == [False]
    assert wanted()
    assert not build_wanted()  # nothing to colour: the view need not lay it out again
    render("```no-such-language\nx\n```", _font(), theme_for(_light()))
    assert not wanted()  # known now to have no lexer


def test_a_reply_naming_hundreds_of_languages_wants_a_bounded_few(
    qtbot: QtBot, no_lexers: None
) -> None:
    text = "\n\n".join(f"```lang{n}\nx\n```" for n in range(500))
    rendered = render(text, _font(), theme_for(_light()))
    rendered.document.setTextWidth(400)
    assert len(rendered.code_blocks()) == 500
    assert 0 < len(lexers._wanted) <= 64
    assert not build_wanted()
    assert len(lexers._lexers) <= 64


def test_code_is_kept_verbatim_and_coloured_only_once_closed(qtbot: QtBot) -> None:
    assert lexer_for("python") is not None  # built, as after the first paint that wanted it
    theme = theme_for(_light())
    code = 'def f(x):\n\treturn x  # tab kept\n\nprint("<b>")'
    rendered = render(f"Look:\n\n```python\n{code}\n```\n\nand <b>this</b>.", _font(), theme)
    rendered.document.setTextWidth(500)
    [block] = rendered.code_blocks()
    assert block.code == code and block.language == "python" and block.highlighted
    html = rendered.document.toHtml()
    assert "color:#008000" in html  # Pygments' "default" style colours `def` and `return`
    assert "&lt;b&gt;this&lt;/b&gt;" in html  # a model's HTML is words, not markup
    assert block.box.height() > 3 * block.header.height()  # header strip above four lines

    opened = render(f"Look:\n\n```python\n{code}", _font(), theme)
    opened.document.setTextWidth(500)
    [still] = opened.code_blocks()
    assert still.code == code and not still.highlighted
    assert "color:#008000" not in opened.document.toHtml()


def test_a_fence_the_reader_sees_otherwise_shows_as_written(qtbot: QtBot) -> None:
    # Indented four spaces after a paragraph, "```" is indented code to CommonMark.
    rendered = render("Text\n\n    ```\n    x\n    ```\n", _font(), theme_for(_light()))
    rendered.document.setTextWidth(400)
    assert "sightline-fence" not in rendered.document.toPlainText()
    [block] = rendered.code_blocks()
    assert block.code == "```\nx\n```" and not block.highlighted


def test_unknown_languages_and_huge_blocks_stay_plain(qtbot: QtBot) -> None:
    assert highlight("x = 1", "no-such-language", PYGMENTS_LIGHT) is None
    assert highlight("x = 1\n" * (MAX_CHARS // 6 + 1), "python", PYGMENTS_LIGHT) is None
    runs = highlight("x = 1", "py3", PYGMENTS_LIGHT)
    assert runs is not None and "".join(words for words, _ in runs) == "x = 1"
    assert highlight("x = 1", "py3", PYGMENTS_LIGHT) is runs  # lexed once


def _font() -> QFont:
    return QGuiApplication.font()


def test_a_table_lines_up_even_straight_after_a_code_block(qtbot: QtBot) -> None:
    from PySide6.QtGui import QTextCharFormat, QTextTable

    text = "```python\nx = 1\n```\n\n| approach | lines |\n| --- | ---: |\n| loop | 5 |\n"
    rendered = render(text, _font(), theme_for(_light()))
    rendered.document.setTextWidth(500)
    [table] = [f for f in rendered.document.rootFrame().childFrames() if isinstance(f, QTextTable)]
    first = table.cellAt(0, 0)
    # Qt's reader gives this cell an empty first line; the words are on the first now.
    assert first.firstCursorPosition().block().text() == "approach"
    layout = rendered.document.documentLayout()
    tops = [
        layout.blockBoundingRect(table.cellAt(0, c).firstCursorPosition().block()).top()
        for c in range(table.columns())
    ]
    assert tops[0] == tops[1]  # one row, one line: the header's cells side by side
    shape = table.format()
    assert shape.border() == 1 and shape.cellPadding() == 5
    aligned = table.cellAt(1, 1).format().verticalAlignment()
    assert aligned == QTextCharFormat.VerticalAlignment.AlignMiddle
    assert [b.code for b in rendered.code_blocks()] == ["x = 1"]
