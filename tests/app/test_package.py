"""Entering the `app` package keeps httpx's own command line out of the process."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

LOADED = (
    "import sys; {first}import httpx; "
    "print(sorted(m for m in ('click', 'pygments') if m in sys.modules))"
)


def _loaded(first: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", LOADED.format(first=first)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.strip()


@pytest.mark.skipif(
    importlib.util.find_spec("click") is None,
    reason="click is not installed, so httpx never loads its command line here",
)
def test_httpx_command_line_stays_out_once_app_is_imported() -> None:
    assert _loaded("") != "[]"  # httpx alone loads click (and pygments) for its CLI
    assert _loaded("import app; ") == "[]"
