"""Sightline's own files, read at run time: the describer's prompt, icons, the desktop entry.

They are this package's data, so they ship inside the distribution and are found
in the folder the import system found this package in (its `__path__`), alike from a
checkout, a wheel, an sdist install and the PyInstaller build (`sys._MEIPASS/resources`);
no code works out a path from where its source file lies. `importlib.resources` finds
the same folder, but importing it and its readers took 2-3 ms of every start before the
window's first paint, which reads the window's icon.
"""

from __future__ import annotations

import os
from typing import Literal

DESCRIBER_PROMPT = "describer_prompt.md"
DESKTOP_ENTRY = "sightline.desktop"
APP_ICON = "icons/sightline.png"
Badge = Literal["eye", "tools"]  # the small SVG marks, tinted when drawn
BADGES: tuple[Badge, ...] = ("eye", "tools")

# Every file the code reads; tests/packaging checks each is inside the built wheel.
READ_AT_RUN_TIME = frozenset({DESCRIBER_PROMPT, DESKTOP_ENTRY, APP_ICON}) | {
    f"icons/{badge}.svg" for badge in BADGES
}

# A resource is a few KB; anything past this is not the file Sightline shipped.
MAX_RESOURCE_BYTES = 1_000_000


class ResourceMissing(LookupError):
    """A resource the code asked for is not one Sightline ships, or is not installed."""


def read_bytes(name: str) -> bytes:
    """The bytes of one shipped resource, named by its path inside `resources/`."""
    if name not in READ_AT_RUN_TIME:
        raise ResourceMissing(f"{name!r} is not one of Sightline's resources")
    try:
        with open(os.path.join(__path__[0], *name.split("/")), "rb") as handle:
            data = handle.read(MAX_RESOURCE_BYTES + 1)
    except (OSError, IndexError) as exc:
        raise ResourceMissing(
            f"Sightline's resource {name} is missing from this installation ({exc}); "
            "reinstall Sightline."
        ) from None
    if len(data) > MAX_RESOURCE_BYTES:
        raise ResourceMissing(f"Sightline's resource {name} is larger than any it ships")
    return data


def read_text(name: str) -> str:
    """A shipped text resource, decoded as UTF-8."""
    return read_bytes(name).decode("utf-8")
