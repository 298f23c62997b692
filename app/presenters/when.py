"""When something happened, as the window says it: in a chat list's few characters, in
full, or as the ledger dates a crossing."""

from __future__ import annotations

import time

_FULL = "%Y-%m-%d %H:%M"


def full_when(timestamp: float) -> str:
    """The date and time: "2026-03-12 14:02"."""
    return time.strftime(_FULL, time.localtime(timestamp))


def today_or_full_when(timestamp: float) -> str:
    """The time of day for today, the date too for an earlier day."""
    then = time.localtime(timestamp)
    same_day = then[:3] == time.localtime()[:3]
    return time.strftime("%H:%M" if same_day else _FULL, then)


def short_when(timestamp: float, now: float | None = None) -> str:
    """When a chat was last used, in a few characters: "14:02", "Yesterday", "Mon",
    "12 Nov", "Nov 2025"."""
    moment, today = (
        time.localtime(timestamp),
        time.localtime(now if now is not None else time.time()),
    )
    days = (
        time.mktime((today.tm_year, today.tm_mon, today.tm_mday, 0, 0, 0, 0, 0, -1))
        - time.mktime((moment.tm_year, moment.tm_mon, moment.tm_mday, 0, 0, 0, 0, 0, -1))
    ) // 86_400
    if days <= 0:
        return time.strftime("%H:%M", moment)
    if days == 1:
        return "Yesterday"
    if days < 7:
        return time.strftime("%a", moment)
    if moment.tm_year == today.tm_year:
        return f"{moment.tm_mday} {time.strftime('%b', moment)}"
    return time.strftime("%b %Y", moment)
