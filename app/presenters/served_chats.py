"""Conversations another app had served, as the window tells them apart: by the title the
server gives them ("Served to" and the client's name), with the words the list, a screen
reader and a waiting tool call say of them.

The title is the mark, so a chat that `sightline serve` stored last week is marked like one
the window's own server stored a minute ago; one the person renames is theirs, unmarked.
"""

from __future__ import annotations

# app.serve.served.TITLE begins so (tests/app/presenters/test_served_chats.py holds them
# together): the server's module loads its web framework, which the first paint must not.
SERVED_PREFIX = "Served to "
BADGE = "served"
DESCRIPTION = "A request another app sent to Sightline's server, and the answer it was given"


def served_client(title: str) -> str | None:
    """The app a conversation was served to, or None for one of the person's own."""
    if not title.startswith(SERVED_PREFIX):
        return None
    return title.removeprefix(SERVED_PREFIX).strip() or None


def spoken(title: str) -> str:
    """The row's title as a screen reader says it: a served one as the list shows it, the
    app's name and its mark, in words."""
    client = served_client(title)
    return f"{client}, served to another app" if client else title


def asking(title: str, tool: str) -> str:
    """What the window says when a served turn's tool call waits in a chat not shown."""
    who = served_client(title) or "another app"
    return (
        f"{who} is waiting: its request asks to run {tool}. Open “{title}” in the list "
        "to allow it or not."
    )
