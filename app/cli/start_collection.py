"""Python's cycle collector held off while a command starts.

Starting a command loads a few hundred modules: tens of thousands of objects that live
as long as the process, and next to no garbage. The collector runs each time
allocations pass its threshold, so it walks them again and again while they load: in
one `sightline ask`, 70 young collections and 6 older ones, 8-13 ms here, before the
first word. Held off until the command's start is over, everything it loaded is then
frozen (`gc.freeze`: left out of every later collection, as it would never be garbage)
and collection comes back for what the command itself makes. The last collection, as
the process exits, then walks only that: `ask` ends 6-7 ms after its last line here,
where it took 26-29 ms.

`main` is a process's entry point (the `sightline` command, or its tests' child
processes): freezing the objects alive then pins nothing another caller still frees.
"""

from __future__ import annotations

import gc


class StartCollection:
    """Automatic collection off from a command's start until `resume` (or `hand_over`)."""

    def __init__(self) -> None:
        self.was_enabled = gc.isenabled()  # the process's own setting, given back after
        self._held = True
        gc.disable()

    @property
    def held(self) -> bool:
        """Whether collection is still held off by this start."""
        return self._held

    def resume(self) -> None:
        """The start is over: what it made frozen, collection back as it was. Once."""
        if not self._held:
            return
        self._held = False
        gc.freeze()
        if self.was_enabled:
            gc.enable()

    def hand_over(self) -> bool:
        """Another keeps collection from now on (the window's own collector); returns
        whether it was enabled before the start, for that one to give back."""
        self._held = False
        return self.was_enabled
