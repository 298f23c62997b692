"""How `ask` prints a turn: the answer on stdout and notices on stderr, or JSON lines."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any, TextIO

from vision.labels import shown_name

if TYPE_CHECKING:
    from app.turn.events import TurnEvent
    from routing.answer_stats import AnswerStats
    from routing.transcript import Notice


class PlainPrinter:
    """The answer on stdout as it streams; notices on stderr."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out, self.err = out, err
        self._flush_waiting = False  # words written, their flush due once the loop is idle
        self._broken: BrokenPipeError | None = None  # the reader left during a later flush

    def show(self, event: TurnEvent) -> None:
        from app.turn.events import ItemAdded, TextAdded
        from routing.transcript import Notice, NoticeKind

        if isinstance(event, TextAdded):
            if self._broken is not None:  # as a flush of its own would have raised it
                raise self._broken
            self.out.write(event.text)
            self._flush_soon()
        elif isinstance(event, ItemAdded) and isinstance(event.item.item, Notice):
            notice = event.item.item
            if notice.kind != NoticeKind.ERROR:  # an error ends as the one-line exit message
                self.show_notice(notice)

    def _flush_soon(self) -> None:
        """Flush once the loop has handled what is ready, not after every chunk.

        One read from a stream often holds many chunks: their words go out in one write
        as soon as the turn waits for more (a flush a chunk was 770 writes for a
        500-token answer). Nothing waits longer than that.
        """
        if self._flush_waiting:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop: at once
            self.out.flush()
            return
        self._flush_waiting = True
        loop.call_soon(self._flush_later)

    def _flush_later(self) -> None:
        # Raised here it would only reach the loop's log: kept for the turn's next word.
        try:
            self.flush()
        except BrokenPipeError as exc:
            self._broken = exc

    def flush(self) -> None:
        """Put out the words written so far (before anything on stderr, to keep the order)."""
        self._flush_waiting = False
        self.out.flush()

    def show_notice(self, notice: Notice) -> None:
        """One notice on stderr."""
        self.flush()
        # One line each, whatever a file's name or a server's words hold.
        details = f" ({shown_name(notice.details)})" if notice.details else ""
        print(f"[{notice.kind}] {shown_name(notice.text)}{details}", file=self.err, flush=True)

    def finish(self, conversation_id: str) -> None:
        self.out.write("\n")
        self.flush()


class JsonPrinter:
    """One JSON object per line, each with a `type`."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self._stats: AnswerStats | None = None  # the last answer's, for the done line

    def _emit(self, obj: dict[str, Any]) -> None:
        self.out.write(json.dumps(obj) + "\n")
        self.out.flush()

    def flush(self) -> None:
        """Every line is flushed as it is written: nothing waits."""
        self.out.flush()

    def show(self, event: TurnEvent) -> None:
        from app.turn.events import (
            ItemAdded,
            ItemFinished,
            PartAdded,
            PlanUpdated,
            TextAdded,
            ThoughtAdded,
            UsageAdded,
        )
        from routing.transcript import Message, Notice, NoticeKind, ToolCall

        if isinstance(event, ThoughtAdded):  # an agent thinking aloud
            self._emit({"type": "thought", "text": event.text})
        elif isinstance(event, PlanUpdated):  # an agent's plan, whole each time
            entries = [
                {"content": e.content, "status": e.status, "priority": e.priority}
                for e in event.entries
            ]
            self._emit({"type": "plan", "entries": entries})
        elif isinstance(event, PartAdded) and isinstance(event.part, ToolCall):
            call = event.part
            self._emit(
                {
                    "type": "tool_call",
                    "id": call.id,
                    "name": call.name,
                    "arguments": dict(call.arguments),
                }
            )
        elif isinstance(event, TextAdded):
            self._emit({"type": "text", "text": event.text})
        elif isinstance(event, ItemFinished):
            self._stats = event.stats or self._stats
        elif isinstance(event, UsageAdded):
            usage = event.usage
            self._emit(
                {
                    "type": "usage",
                    "for": event.source,
                    "input_tokens": usage.input_tokens,
                    "output_tokens": usage.output_tokens,
                    # The answering model's window, so a caller sees how full it is.
                    "context_window": event.window,
                }
            )
        elif isinstance(event, ItemAdded):
            item = event.item.item
            if isinstance(item, Notice) and item.kind != NoticeKind.ERROR:
                self.show_notice(item)
            elif isinstance(item, Message):
                for result in item.tool_results:
                    self._emit(
                        {
                            "type": "tool_result",
                            "id": result.call_id,
                            "name": result.name,
                            "text": result.text,
                            "is_error": result.is_error,
                            "pictures": len(result.pictures),
                        }
                    )

    def show_notice(self, notice: Notice) -> None:
        """One notice as a JSON line."""
        line = {"type": "notice", "kind": str(notice.kind), "text": notice.text}
        if notice.details:
            line["details"] = notice.details
        self._emit(line)

    def finish(self, conversation_id: str) -> None:
        done: dict[str, Any] = {"type": "done", "conversation": conversation_id}
        if self._stats is not None:
            done["stats"] = self._stats.to_json()  # the last answer's, as it was stored
        self._emit(done)
