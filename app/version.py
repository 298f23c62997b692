"""Sightline's version: defined once, in pyproject.toml, and read from the installed metadata."""

from __future__ import annotations

from functools import cache

DISTRIBUTION = "sightline"


@cache
def installed_version() -> str:
    """The version of the installed distribution (wheel, sdist, editable or frozen build)."""
    # Imported here: `importlib.metadata` costs start-up time the window doesn't need.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "unknown (run from a folder without installing it)"
