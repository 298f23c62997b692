"""The installed PySide6 keeps `None` and `True` alive through a flood of calls.

PySide6 6.12.0 releases references to None/True that it never took; on Python
3.11 the interpreter then aborts ("none_dealloc") within seconds of painting a
conversation. pyproject.toml keeps that release off 3.11; this proves it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

_FLOOD = textwrap.dedent(
    """
    import os
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtCore import QObject, Signal

    class Source(QObject):
        ping = Signal(int)

    source = Source()
    source.ping.connect(lambda value: None)
    for n in range(60_000):
        source.setObjectName("x")  # a void method: returns None
        source.ping.emit(n)  # delivered to a Python slot
    print("survived")
    """
)


def test_sixty_thousand_calls_do_not_abort_the_interpreter() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _FLOOD], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "survived"
