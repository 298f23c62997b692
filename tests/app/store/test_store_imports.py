"""The window's first paint opens the store and lists its chats, and loads none of what is
inside a conversation: a top-level import that brings one of these back fails here. Each
check runs in a fresh process, where nothing else has imported them first."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path

from app.store import Store
from routing.transcript import user_message
from tests.pictures import make_picture

ROOT = Path(__file__).resolve().parents[3]

# What loads the first time an item is read or written, never to open or list.
NOT_TO_LIST = {
    "routing.transcript": "messages and notices load with the first item",
    "routing.answer_stats": "an answer's stats load with the first item",
    "vision.pdf": "PDFs load with the first item",
    "vision.pictures": "pictures load with the first item",
    "app.store.parts": "parts load with the first item",
    "app.store.part_reader": "parts load with the first item",
    "app.store.item_rows": "items are read back from rows with the first item",
    "app.store.bulk": "an import makes `Store.bulk` when it starts",
    "app.store.picture_words": "described pictures are read when a picture is shown",
}

# Open, list and search as the chat list does (app/ui/chats.py), close; then read a page.
_CHILD = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from app.store import Store

    folder, watched = Path(sys.argv[1]), sys.argv[2:]
    store = Store.open(folder)
    listed = store.conversations.list()
    found = store.conversations.search("blue")
    summary = store.conversations.get(listed[0].id)
    store.close()
    loaded = sorted(name for name in watched if name in sys.modules)
    with Store.open(folder) as store:
        page = store.page(listed[0].id)
    print(json.dumps({
        "loaded": loaded,
        "listed": [s.title for s in listed],
        "found": [hit.snippet for hit in found],
        "got": summary is not None and summary.title,
        "page": [(s.item.text, getattr(s.item, "status", "")) for s in page],
    }))
    """
)


def test_opening_and_listing_load_nothing_of_a_conversation(tmp_path: Path) -> None:
    assert all(importlib.util.find_spec(name) for name in NOT_TO_LIST)  # no name misspelt
    folder = tmp_path / "data"
    with Store.open(folder) as store:
        chat = store.conversations.create()
        red = make_picture("red", (8, 6))
        store.add_message(chat, user_message("Is the sky blue?", (red,)))
        answer = store.begin_assistant(chat, "ollama:llava:7b")
        store.append_text(answer.id, "Mostly")  # left streaming: the next open recovers it
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(folder), *NOT_TO_LIST],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert {name: NOT_TO_LIST[name] for name in seen["loaded"]} == {}
    assert seen["listed"] == ["Is the sky blue?"] and seen["got"] == "Is the sky blue?"
    assert seen["found"] == [""]  # found by its title
    assert seen["page"] == [["Is the sky blue?", "complete"], ["Mostly", "interrupted"]]
