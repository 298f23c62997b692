"""Python's cycle collector, run on the window's thread only.

The collector runs in whichever thread passes its threshold: a worker reading the
keyring or decoding a picture as easily as the window's. A Qt object freed there was
made on the window's thread; freed on another, its timers stay armed, and the next one
to fire crashes the app. So while the window runs, automatic collection is off and a
timer on the window's thread collects instead, each generation once its threshold is
passed, as Python itself would.

The first time it looks, the window has started: what is alive then (its modules, its
widgets, ~50,000 objects) lives as long as the window, so it is collected once and
frozen (`gc.freeze`). A later full collection then walks only what came since: 7-13 ms
less of the window's thread each time, here. Frozen objects that fall out of use are
still freed as their last reference goes; only a cycle among them would wait for the
window to close (leaving the chat a returning start showed leaves none, measured).
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QTimer

INTERVAL_MS = 500  # how often the window's thread looks; garbage waits at most this long


class MainThreadCollector:
    """Automatic collection moved onto the thread that made it (the window's)."""

    def __init__(self, interval_ms: int = INTERVAL_MS, *, was_enabled: bool | None = None) -> None:
        """Take collection over; `was_enabled`: as it was before a start that already held
        it off (app/cli/start_collection.py), to give back at `stop`."""
        self._thresholds = gc.get_threshold()
        self._was_enabled = gc.isenabled() if was_enabled is None else was_enabled
        gc.disable()
        self._froze = False
        self._timer = QTimer()
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.collect)
        self._timer.start()

    def collect(self) -> None:
        """Collect the oldest generation whose threshold is passed, if any; the first time,
        everything, then what is left frozen (the module's docstring)."""
        if not self._froze:
            self._froze = True
            gc.collect()
            gc.freeze()
            return
        counts = gc.get_count()
        for generation in (2, 1, 0):
            if counts[generation] > self._thresholds[generation]:
                gc.collect(generation)
                return

    def stop(self) -> None:
        """Give collection back to Python, with what was frozen."""
        self._timer.stop()
        if self._froze:
            gc.unfreeze()
        if self._was_enabled:
            gc.enable()
