"""Served conversations told apart by their title (app/presenters/served_chats.py)."""

from __future__ import annotations

from app.presenters.served_chats import SERVED_PREFIX, asking, served_client, spoken
from app.serve.served import TITLE


def test_the_prefix_is_the_one_the_server_titles_its_conversations_with() -> None:
    assert TITLE.format(client="x").startswith(SERVED_PREFIX)
    assert served_client(TITLE.format(client="OpenAI/Python 1.99.0")) == "OpenAI/Python 1.99.0"


def test_the_persons_own_chats_are_not_served() -> None:
    assert served_client("Trip to Lisbon") is None
    assert served_client("Served to ") is None  # no client named: not the server's title
    assert served_client("served to the table") is None
    assert spoken("Trip to Lisbon") == "Trip to Lisbon"


def test_a_screen_reader_hears_that_a_chat_was_served() -> None:
    assert spoken("Served to a script") == "a script, served to another app"


def test_a_waiting_call_names_the_app_the_tool_and_where_to_answer() -> None:
    assert asking("Served to curl/8.5", "read_file") == (
        "curl/8.5 is waiting: its request asks to run read_file. Open “Served to curl/8.5” "
        "in the list to allow it or not."
    )
