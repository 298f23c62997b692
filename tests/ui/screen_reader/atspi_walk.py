"""Read Sightline's window as a screen reader does, over the real AT-SPI bus.

Run by the system's Python (where Debian's python3-pyatspi lives), not the project's:
`python3 atspi_walk.py tree` prints the application's accessible tree as JSON, only
what is showing; `python3 atspi_walk.py select ROLE NAME INDEX` selects a child of the
named list, as a screen reader's "select" does; `python3 atspi_walk.py press ROLE NAME`
does a control's first action (a button's press); `python3 atspi_walk.py type ROLE NAME
TEXT` puts TEXT in a named text box, as a screen reader's typing does. These wait up to
60 s for the window (a loaded machine starts it slowly). `python3 atspi_walk.py listen
EVENT SECONDS COUNT` hears EVENT (an AT-SPI event type, "object:announcement") for up to
SECONDS or until COUNT came, printing "listening" once registered and then the events
heard as JSON, as a screen reader hears what the window says unasked. `python3
atspi_walk.py ready` returns once the bus's registry answers, so the window is started on
a bus that can take it.
"""

import contextlib
import json
import sys
import time
from typing import Any

import pyatspi

APP = "Sightline"
MAX_DEPTH = 40
MAX_CHILDREN = 500


def application() -> Any:
    """The application named Sightline on the bus, waited for."""
    deadline = time.monotonic() + 60
    seen: set[str] = set()
    while time.monotonic() < deadline:
        desktop = pyatspi.Registry.getDesktop(0)
        for i in range(desktop.childCount):
            app = desktop.getChildAtIndex(i)
            if app is None:
                continue
            seen.add(f"{app.name!r} ({app.childCount} children)")
            if app.name == APP and app.childCount > 0:
                return app
        time.sleep(0.2)
    on_bus = ", ".join(sorted(seen)) or "none"
    raise SystemExit(f"no application named {APP} on the accessibility bus; seen: {on_bus}")


def node(acc: Any, depth: int) -> dict[str, Any]:
    """One accessible and its showing children, as a screen reader would find them."""
    states = acc.getState()
    found = {
        "role": acc.getRoleName(),
        "name": acc.name or "",
        "description": acc.description or "",
        "focused": states.contains(pyatspi.STATE_FOCUSED),
        "enabled": states.contains(pyatspi.STATE_ENABLED),
    }
    with contextlib.suppress(NotImplementedError):
        found["actions"] = [acc.queryAction().getName(i) for i in range(acc.queryAction().nActions)]
    children = []
    if depth < MAX_DEPTH:
        for i in range(min(acc.childCount, MAX_CHILDREN)):
            child = acc.getChildAtIndex(i)
            if child is not None and child.getState().contains(pyatspi.STATE_SHOWING):
                children.append(node(child, depth + 1))
    if children:
        found["children"] = children
    return found


def find(acc: Any, role: str, name: str) -> Any:
    """The first showing accessible with this role and name, depth first."""
    if acc.getRoleName() == role and acc.name == name:
        return acc
    for i in range(min(acc.childCount, MAX_CHILDREN)):
        child = acc.getChildAtIndex(i)
        if child is not None and child.getState().contains(pyatspi.STATE_SHOWING):
            hit = find(child, role, name)
            if hit is not None:
                return hit
    return None


def listen(event_type: str, seconds: float, count: int) -> None:
    """Print "listening", then the events of `event_type` heard, as JSON (source, text)."""
    from gi.repository import GLib

    heard: list[dict[str, Any]] = []

    def on_event(event: Any) -> None:
        source = event.source
        heard.append(
            {
                "type": event.type,
                "text": event.any_data if isinstance(event.any_data, str) else "",
                "detail1": event.detail1,  # an announcement's politeness (1 polite, 2 assertive)
                "source_role": source.getRoleName() if source is not None else "",
                "source_name": (source.name or "") if source is not None else "",
            }
        )
        if len(heard) >= count:
            pyatspi.Registry.stop()

    pyatspi.Registry.registerEventListener(on_event, event_type)
    GLib.timeout_add(int(seconds * 1000), lambda: pyatspi.Registry.stop() or False)
    print("listening", flush=True)
    pyatspi.Registry.start()
    json.dump(heard, sys.stdout)


def main() -> None:
    if sys.argv[1] == "listen":  # needs no window: it may start before one shows
        listen(sys.argv[2], float(sys.argv[3]), int(sys.argv[4]))
        return
    if sys.argv[1] == "ready":
        print(pyatspi.Registry.getDesktop(0).childCount, file=sys.stderr)  # waits for the registry
        return
    app = application()
    if sys.argv[1] == "tree":
        json.dump(node(app, 0), sys.stdout)
    elif sys.argv[1] == "press":  # a control's first action, as a screen reader's "activate"
        role, name = sys.argv[2], sys.argv[3]
        target = find(app, role, name)
        if target is None:
            raise SystemExit(f"no {role} named {name!r}")
        if not target.queryAction().doAction(0):
            raise SystemExit(f"{role} {name!r} refused its action")
    elif sys.argv[1] == "type":  # words put in a text box, as a screen reader's typing
        role, name, text = sys.argv[2], sys.argv[3], sys.argv[4]
        target = find(app, role, name)
        if target is None:
            raise SystemExit(f"no {role} named {name!r}")
        if not target.queryEditableText().setTextContents(text):
            raise SystemExit(f"{role} {name!r} refused the words")
    elif sys.argv[1] == "select":
        role, name, index = sys.argv[2], sys.argv[3], int(sys.argv[4])
        target = find(app, role, name)
        if target is None:
            raise SystemExit(f"no {role} named {name!r}")
        if not target.querySelection().selectChild(index):
            raise SystemExit(f"{role} {name!r} refused to select child {index}")


main()
