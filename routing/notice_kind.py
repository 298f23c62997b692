"""What a notice is about: `NoticeKind`, in a module of its own so the window's colours
are set before the first paint without loading the transcript (`routing.transcript`
re-exports it).
"""

from __future__ import annotations

from enum import StrEnum


class NoticeKind(StrEnum):
    """What a notice is about; the window styles each kind."""

    ROUTING = "routing"
    DISCLOSURE = "disclosure"
    HEAL = "heal"
    BUDGET = "budget"
    ERROR = "error"
    INFO = "info"
    SIGHT = "sight"  # a sight check was made, and what it found
    NOBODY_SEES = "nobody_sees"  # pictures no model here may look at: they were only noted
