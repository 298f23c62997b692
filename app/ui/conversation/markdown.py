"""A message's Markdown as a laid-out document, its fenced code coloured and copyable.

Qt's own Markdown reader (md4c) lays out everything, lists and tables included.
Fences are found first by a small scanner, which keeps each block's code
exactly as written (Qt's reader turns tabs into spaces) and marks each opening
fence with its number, so the reader's code blocks are matched to them one to
one even where two blocks touch. Each matched block then gets its code back
verbatim, coloured by Pygments once its fence has closed; while an answer
streams, the fence still open at its end stays plain.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

from PySide6.QtCore import QRectF
from PySide6.QtGui import (
    QFont,
    QTextBlock,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextFrameFormat,
    QTextTable,
)

from app.ui.conversation.painting import CODE_HEADER, CODE_PAD, wrapping_document
from app.ui.theme import Theme

_GAP = 6  # between a code box and the paragraphs around it
_MARK = "sightline-fence-"
_OPENING = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_FEATURES = (
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub
    # A model's "<div>" is words to show, not markup to obey.
    | QTextDocument.MarkdownFeature.MarkdownNoHTML
)


@dataclass(frozen=True)
class Fence:
    """One fenced code block of a message's source."""

    number: int  # 0 for the message's first fence
    language: str
    code: str  # exactly as written, without the fences
    closed: bool  # False while its closing fence hasn't streamed in yet
    line: int  # the opening fence's line in the source


@dataclass(frozen=True)
class CodeBlock:
    """A code block as drawn: its words, and where its box and copy button are."""

    number: int
    language: str
    code: str
    highlighted: bool
    box: QRectF  # the whole box, header included, in document coordinates
    header: QRectF


def find_fences(text: str) -> list[Fence]:
    """The fenced code blocks of Markdown `text`, in order (the last may be still open)."""
    lines = text.split("\n")
    if lines[-1] == "":  # the text's last newline ends its last line; no empty line follows
        lines.pop()
    fences: list[Fence] = []
    position = 0
    while position < len(lines):
        match = _OPENING.match(lines[position])
        fence = match["fence"] if match else ""
        if not match or (fence[0] == "`" and "`" in match["info"]):
            position += 1
            continue
        indent = len(match["indent"].expandtabs(4))
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        end = position + 1
        while end < len(lines) and not closing.match(lines[end]):
            end += 1
        body = [_dedent(line, indent) for line in lines[position + 1 : end]]
        language = match["info"].strip().split(" ")[0] if match["info"].strip() else ""
        closed = end < len(lines)
        fences.append(Fence(len(fences), language, "\n".join(body), closed, position))
        position = end + 1
    return fences


def _dedent(line: str, indent: int) -> str:
    """A code line without the fence's own indentation (as CommonMark reads it)."""
    removed = 0
    while removed < indent and line[:1] == " ":
        line, removed = line[1:], removed + 1
    return line


def _marked(text: str, fences: list[Fence]) -> str:
    """`text` with each opening fence's info replaced by its number, for matching."""
    if not fences:
        return text
    lines = text.split("\n")
    for fence in fences:
        match = _OPENING.match(lines[fence.line])
        assert match is not None
        lines[fence.line] = f"{match['indent']}{match['fence']}{_MARK}{fence.number}"
    return "\n".join(lines)


class Rendered:
    """A message laid out: its document, and its code blocks at the document's width."""

    def __init__(self, document: QTextDocument, starts: list[_Start]):
        """Wrap a document whose code blocks start where `starts` say."""
        self.document = document
        self.starts = starts
        self._width = -1.0
        self._code: list[CodeBlock] = []

    def code_blocks(self) -> list[CodeBlock]:
        """The code blocks, in order, with their boxes at the current text width."""
        width = self.document.textWidth()
        if width != self._width:
            self._width = width
            self._code = [self._place(n, start) for n, start in enumerate(self.starts)]
        return self._code

    def _place(self, number: int, start: _Start) -> CodeBlock:
        document = self.document
        layout = document.documentLayout()
        first = document.findBlockByNumber(start.block)
        last = document.findBlockByNumber(start.last)
        top = layout.blockBoundingRect(first).top()
        bottom = layout.blockBoundingRect(last).bottom() + CODE_PAD
        lines = first.layout()
        left = (lines.lineAt(0).x() if lines.lineCount() else float(CODE_PAD)) - CODE_PAD
        box = QRectF(left, top - CODE_HEADER, document.textWidth() - left, 0)
        box.setBottom(bottom)
        header = QRectF(box.left(), box.top(), box.width(), CODE_HEADER - _GAP / 2)
        return CodeBlock(number, start.language, start.code, start.highlighted, box, header)


@dataclass(frozen=True)
class _Start:
    """Where one code block's lines are in the document, and what it holds."""

    block: int  # its first line's block number
    last: int
    language: str
    code: str
    highlighted: bool
    fence: int | None  # the source fence it shows, if any


def render(text: str, font: QFont, theme: Theme) -> Rendered:
    """Lay `text` out as Markdown in `font` and `theme`'s colours (no width set yet); its
    closed code blocks coloured where their language's lexer is built (`highlight.wanted`
    says when one is left plain for now)."""
    text = text.replace("\r\n", "\n")
    fences = find_fences(text)
    rendered = _render(text, fences, font, theme)
    matched = {start.fence for start in rendered.starts if start.fence is not None}
    if len(matched) < len(fences) and _MARK in rendered.document.toPlainText():
        # The scanner saw a fence the reader didn't (say, one indented past a list):
        # its number would show, so that one is left as written.
        rendered = _render(text, [f for f in fences if f.number in matched], font, theme)
    return rendered


def _render(text: str, fences: list[Fence], font: QFont, theme: Theme) -> Rendered:
    document = wrapping_document(font)
    document.setMarkdown(_marked(text, fences), _FEATURES)
    by_mark = {f"{_MARK}{fence.number}": fence for fence in fences}
    starts: list[_Start] = []
    block = document.begin()
    while block.isValid():
        if _is_code(block):
            fence = by_mark.get(_language(block))
            if fence is not None:
                first, last, coloured = _fill(document, block, fence, theme)
                code, language = fence.code, fence.language
            else:  # indented code, or a fence in a quote: shown as the reader has it
                first, last, coloured = block, _last_of(block), False
                code, language = _text_between(first, last), ""
            _shape_code(first, last)
            number = fence.number if fence is not None else None
            starts.append(
                _Start(first.blockNumber(), last.blockNumber(), language, code, coloured, number)
            )
            block = last
        elif "`" in text:
            _shade_inline(block, theme)
        block = block.next()
    if "|" in text:
        _shape_tables(document, theme)
    return Rendered(document, starts)


def _shape_tables(document: QTextDocument, theme: Theme) -> None:
    """Tables that line up: hairline rules, room in every cell, each row's cells centred
    on one line, the header row in bold on a faint ground."""
    root = document.rootFrame()
    tables = [frame for frame in root.childFrames() if isinstance(frame, QTextTable)]
    for table in tables:
        shape = table.format()
        shape.setBorder(1)
        shape.setBorderBrush(theme.border)
        shape.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
        shape.setBorderCollapse(True)
        shape.setCellSpacing(0)
        shape.setCellPadding(5)
        shape.setTopMargin(_GAP)
        shape.setBottomMargin(_GAP)
        table.setFormat(shape)
        for row in range(table.rows()):
            for column in range(table.columns()):
                cell = table.cellAt(row, column)
                # Qt's reader opens a table straight after a code block with an empty
                # line in its first cell, which pushes that cell's words down: gone.
                cursor = QTextCursor(document)
                cursor.setPosition(cell.firstPosition())
                if (
                    not cursor.block().text()
                    and cursor.block().next().position() < cell.lastPosition()
                ):
                    cursor.deleteChar()
                cell_format = cell.format()
                cell_format.setVerticalAlignment(QTextCharFormat.VerticalAlignment.AlignMiddle)
                if row == 0:
                    cell_format.setBackground(theme.inline_code)
                cell.setFormat(cell_format)


def _shade_inline(block: QTextBlock, theme: Theme) -> None:
    """Give `inline code` a ground a step darker than the card, so it reads as code in prose."""
    pieces = (piece.fragment() for piece in cast(Iterable[Any], block))
    # Ranges first: formatting a fragment while iterating would split the ones ahead.
    ranges = [
        (f.position(), f.position() + f.length())
        for f in pieces
        if f.isValid() and f.charFormat().fontFixedPitch()
    ]
    shade = QTextCharFormat()
    shade.setBackground(theme.inline_code)
    cursor = QTextCursor(block.document())
    for start, end in ranges:
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        cursor.mergeCharFormat(shade)


def _is_code(block: QTextBlock) -> bool:
    fmt = block.blockFormat()
    # Qt's reader marks fenced code with its fence, indented code with an empty language.
    return (
        fmt.nonBreakableLines()
        or fmt.hasProperty(QTextFormat.Property.BlockCodeFence)
        or fmt.hasProperty(QTextFormat.Property.BlockCodeLanguage)
    )


def _language(block: QTextBlock) -> str:
    value = block.blockFormat().property(QTextFormat.Property.BlockCodeLanguage)
    return value if isinstance(value, str) else ""


def _last_of(first: QTextBlock) -> QTextBlock:
    """The last line of the code block starting at `first`: the lines that share its fence."""
    mark, block = _language(first), first
    while block.next().isValid() and _is_code(block.next()) and _language(block.next()) == mark:
        block = block.next()
    return block


def _text_between(first: QTextBlock, last: QTextBlock) -> str:
    lines = [first.text()]
    block = first
    while block != last:
        block = block.next()
        lines.append(block.text())
    return "\n".join(lines)


def _fill(
    document: QTextDocument, first: QTextBlock, fence: Fence, theme: Theme
) -> tuple[QTextBlock, QTextBlock, bool]:
    """Put the fence's verbatim (and, closed, coloured) code in place of the reader's."""
    last = _last_of(first)
    start = first.position()
    probe = QTextCursor(first)
    if first.length() > 1:  # the format of the first character, the code font's
        probe.movePosition(QTextCursor.MoveOperation.NextCharacter)
    base = QTextCharFormat(probe.charFormat())
    base.setForeground(theme.code_text)
    cursor = QTextCursor(document)
    cursor.setPosition(start)
    cursor.setPosition(last.position() + last.length() - 1, QTextCursor.MoveMode.KeepAnchor)
    cursor.beginEditBlock()
    cursor.removeSelectedText()
    from app.ui.conversation.highlight import highlight

    # Never waits for a lexer: code whose lexer isn't built yet is plain until the view
    # builds it, after the paint that showed it (highlight.py).
    style = theme.pygments_style
    runs = highlight(fence.code, fence.language, style, build=False) if fence.closed else None
    for words, fmt in runs or ((fence.code, None),):
        if fmt is None:
            cursor.insertText(words, base)
        else:
            merged = QTextCharFormat(base)
            merged.merge(fmt)
            cursor.insertText(words, merged)
    cursor.endEditBlock()
    return document.findBlock(start), document.findBlock(cursor.position()), runs is not None


def _shape_code(first: QTextBlock, last: QTextBlock) -> None:
    """Margins that leave room for the box and its header; lines that wrap, not overflow."""
    block = first
    while True:
        fmt = QTextBlockFormat()
        fmt.setNonBreakableLines(False)
        fmt.setLeftMargin(CODE_PAD)
        fmt.setRightMargin(CODE_PAD)
        fmt.setTopMargin(CODE_HEADER + _GAP if block == first else 0)
        fmt.setBottomMargin(CODE_PAD + _GAP if block == last else 0)
        QTextCursor(block).mergeBlockFormat(fmt)
        if block == last or not block.next().isValid():
            break
        block = block.next()
