"""What the undo bar says of the chats waiting for their Undo."""

from __future__ import annotations

from app.presenters.deleted_chats import Deleted


def test_one_chat_is_named_and_several_are_counted() -> None:
    assert Deleted(("Trip to Lisbon",)).words == "“Trip to Lisbon” deleted"
    assert Deleted(("Trip to Lisbon", "Bike gears")).words == "2 conversations deleted"
