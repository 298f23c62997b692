"""Whether this start is a person's first, and the welcome's title: what the window asks
before its first paint. What the welcome then says (app/presenters/welcome.py) loads when a
first start has something to say."""

from __future__ import annotations

WELCOME = "Welcome to Sightline"


def is_first_run(has_config_file: bool, has_conversations: bool) -> bool:
    """No config file and no conversation yet: the person has just arrived."""
    return not has_config_file and not has_conversations
