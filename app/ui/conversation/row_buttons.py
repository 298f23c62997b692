"""A row's buttons by number, and which of them the pointer is on or has just used.

The view and its delegate need these to start; the painting helpers
(app/ui/conversation/painting.py) and the Qt classes they draw with (text documents,
fixed-width fonts, paths) load with the first row drawn, which a first start has none of.
"""

from __future__ import annotations

from dataclasses import dataclass

MESSAGE = -1  # the "block" number of a message's own copy button
# The other buttons of a row, numbered beside it: the version switch's arrows, and an
# error's Retry.
PREVIOUS, NEXT, RETRY_BUTTON = -2, -3, -4
GET_SEEING = -5  # "Get a model that sees", on a notice that no model here could look


@dataclass
class ButtonState:
    """Which copy buttons are hovered or just used, by (item id, block number)."""

    copied: tuple[int, int] | None = None  # says "Copied" for a moment
    hovered: tuple[int, int] | None = None
    hovered_row: int = -1  # the item id of the row under the pointer
