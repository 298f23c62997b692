"""How far a message got: `MessageStatus`, in a module of its own so the store can mark
cut-off answers on open without loading the transcript (`routing.transcript` re-exports it).
"""

from __future__ import annotations

from enum import StrEnum


class MessageStatus(StrEnum):
    """How far a message got; anything but COMPLETE was cut short."""

    COMPLETE = "complete"
    STREAMING = "streaming"
    STOPPED = "stopped"
    FAILED = "failed"
    INTERRUPTED = "interrupted"
