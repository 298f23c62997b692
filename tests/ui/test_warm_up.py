"""What a first send needs is loaded while the window waits: a first message sent after the
warm-up loads none of Sightline's modules itself.

The window runs as a whole process (`python -m app`), as a person starts it: a test's
own process has long imported every module, so only a fresh one can tell what a send
loads. A probe waits for the models' listing and the warm-up, notes `sys.modules`, sends
a message to the loopback Ollama, notes them again once it is answered, and closes.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import SightlineHome
from tests.servers.ollama import FakeOllama
from tests.ui.helpers import run_python

PROBE = """
import json, sys
from app.ui import app as window_app
from app.ui import warm_up

if sys.argv[2] == "cold":
    warm_up.FIRST_SEND = warm_up.FIRST_SEND_QT = ()  # nothing ahead: what a send loads itself

notes = {}
paint_first = window_app._paint_first

def noted():
    # Modules, and the Qt classes PySide6 has built by now (each the first time it is used).
    qt = [
        name
        for module in ("PySide6.QtCore", "PySide6.QtGui", "PySide6.QtWidgets")
        for name in vars(sys.modules[module])
        if name.startswith("Q")
    ]
    return sorted(sys.modules) + qt

def probing_paint_first(session, timeout_s):
    from PySide6.QtCore import QTimer

    window, controller = session.window, session.controller
    seen = {"sent": False, "busy": False, "listed": False}
    controller.busy_changed.connect(lambda busy: seen.update(busy=seen["busy"] or busy))
    controller.models_changed.connect(
        lambda listing: seen.update(listed=seen["listed"] or bool(listing.models))
    )
    timer = QTimer(window)

    def step():
        warming = window.findChild(warm_up.WarmUp)
        if not seen["sent"]:
            if warming is not None and warming.done and seen["listed"]:
                notes["before"] = noted()
                seen["sent"] = True
                window.composer.send_requested.emit("Hello?")  # what Enter does
        elif seen["busy"] and not controller.busy:
            notes["after"] = noted()
            timer.stop()
            window.close()

    timer.timeout.connect(step)
    timer.start(20)
    QTimer.singleShot(30_000, window.close)  # never left open: the test fails on no notes
    paint_first(session, timeout_s)

window_app._paint_first = probing_paint_first
from app.cli import main
status = main([])
with open(sys.argv[1], "w", encoding="utf-8") as handle:
    json.dump(notes, handle)
sys.exit(status)
"""

OURS = ("app.", "routing.", "vision.", "Q")  # Sightline's modules, and Qt's classes


def _first_send_loads(home: SightlineHome, tmp_path: Path, how: str) -> list[str]:
    """Sightline's modules a first send loaded itself, and the Qt classes it built, in a
    fresh window process."""
    notes = tmp_path / f"{how}.json"
    done = run_python(home.env(), "-c", PROBE, str(notes), how)
    assert done.returncode == 0, done.stderr
    found = json.loads(notes.read_text(encoding="utf-8"))
    assert set(found) == {"before", "after"}, done.stderr[-2000:]
    new = set(found["after"]) - set(found["before"])
    return sorted(name for name in new if name.startswith(OURS))


def test_a_first_send_after_the_warm_up_loads_nothing_of_its_own(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    loaded = _first_send_loads(home, tmp_path, "warm")
    assert loaded == [], f"add these to app/ui/warm_up.py: {loaded}"
    asked = fake_ollama.chat_requests()
    assert asked and asked[-1]["messages"][-1]["content"] == "Hello?"


def test_without_the_warm_up_a_first_send_loads_the_rows_tools_and_announcement(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    # What the warm-up saves the first Enter: the probe above would see these.
    loaded = _first_send_loads(home, tmp_path, "cold")
    assert {"app.ui.conversation.message_rows", "app.toolbox", "QAccessible"} <= set(loaded)
