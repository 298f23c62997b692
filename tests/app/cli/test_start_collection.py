"""The cycle collector held off while a command starts (app/cli/start_collection.py)."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator

import pytest

from app.cli.start_collection import StartCollection
from tests.app.cli.helpers import python
from tests.conftest import SightlineHome


@pytest.fixture
def collection_as_it_was() -> Iterator[None]:
    """Whatever a test does, this process's collector ends as it began, nothing frozen."""
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    if enabled:
        gc.enable()
    else:
        gc.disable()


@pytest.mark.usefixtures("collection_as_it_was")
def test_a_start_holds_collection_off_until_it_resumes() -> None:
    gc.enable()
    start = StartCollection()
    assert not gc.isenabled() and start.held
    made = [object() for _ in range(10)]  # what the start loads, alive from now on
    start.resume()
    assert gc.isenabled() and not start.held
    # What the start made is left out of later collections.
    assert gc.get_freeze_count() >= len(made)


@pytest.mark.usefixtures("collection_as_it_was")
def test_resuming_twice_changes_nothing_more() -> None:
    gc.enable()
    start = StartCollection()
    start.resume()
    frozen = gc.get_freeze_count()  # less as frozen objects are freed, never more
    made_since: list[list[int]] = [[] for _ in range(1_000)]
    gc.disable()  # as the command might, after its start
    start.resume()
    assert not gc.isenabled()
    assert gc.get_freeze_count() < frozen + len(made_since)  # not frozen a second time


@pytest.mark.usefixtures("collection_as_it_was")
def test_collection_off_before_the_start_stays_off() -> None:
    gc.disable()
    start = StartCollection()
    start.resume()
    assert not gc.isenabled()


@pytest.mark.usefixtures("collection_as_it_was")
def test_handing_over_says_how_it_was_and_leaves_it_to_the_other() -> None:
    gc.enable()
    frozen = gc.get_freeze_count()
    start = StartCollection()
    assert start.hand_over() is True
    assert not start.held and not gc.isenabled()  # the window's collector turns it back
    made_since: list[list[int]] = [[] for _ in range(1_000)]
    start.resume()  # as `main` does once the window has closed
    assert not gc.isenabled()
    assert gc.get_freeze_count() < frozen + len(made_since)  # nothing frozen by it


# Run as `python -c`: `sightline ask ARGS…`, noting at each event it prints whether the
# collector runs and whether the start's objects are frozen; then at the end, as JSON.
_ASK_NOTING_COLLECTION = """
import gc, json, sys
from app.cli import main
from app.cli.printers import PlainPrinter

noted = []
show = PlainPrinter.show

def noting(printer, event):
    noted.append([type(event).__name__, gc.isenabled(), gc.get_freeze_count() > 0])
    show(printer, event)

PlainPrinter.show = noting
status = main(sys.argv[1:])
print(json.dumps({"events": noted, "after": gc.isenabled()}))
sys.exit(status)
"""


def test_ask_collects_again_from_the_answers_first_word(home: SightlineHome) -> None:
    done = python(
        home, "-c", _ASK_NOTING_COLLECTION, "ask", "--model", "ollama:llama3.2:3b", "Hi there"
    )
    assert done.returncode == 0, done.stderr
    answer, noted = done.stdout.rsplit("\n", 2)[:2]
    assert answer == "You said: Hi there"
    events = json.loads(noted)["events"]
    first_word = [kind for kind, *_ in events].index("TextAdded")
    # The person's message, stored while the turn started: collection still held off.
    assert events[0] == ["ItemAdded", False, False]
    # From the answer's first word on it runs, the start's objects frozen.
    assert all(enabled and frozen for _, enabled, frozen in events[first_word:])
    assert json.loads(noted)["after"] is True


def test_other_commands_collect_while_they_run(home: SightlineHome) -> None:
    noting = (
        "import gc, sys\n"
        "import app.cli.chats as chats\n"
        "from app.cli import main\n"
        "run = chats.run\n"
        "chats.run = lambda *a: print(gc.isenabled(), gc.get_freeze_count() > 0) or run(*a)\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    done = python(home, "-c", noting, "chats")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "True True"
