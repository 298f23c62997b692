"""One pull's progress: Ollama's progress lines as the bytes of every layer so far.

Each line of `POST /api/pull` names a layer (by its digest) and how much of it has
arrived; `PullTracker` keeps each layer's count and their running sums, so a line
costs the same however many came before, and reads each number strictly: a byte
count is a whole number within `BYTES_CAP`, and anything else (NaN, Infinity, a
string, a negative) leaves what was known. A pull naming more layers than any model
has is `TooManyLayers`.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

# The speed is what arrived over about this many seconds: steady, yet quick to follow.
SPEED_WINDOW = 5.0
SUCCESS = "success"
# A model is a few layers, each named by "sha256:" and 64 hex digits, of at most some
# hundreds of gigabytes: past these a line's numbers or a pull's layers are not a model's.
DIGEST_CAP = 128
LAYER_CAP = 100_000
BYTES_CAP = 2**50  # a pebibyte


@dataclass(frozen=True)
class PullProgress:
    """Where one pull is: Ollama's words and the bytes of every layer so far.

    `completed` and `total` add up the layers Ollama has reported (a model is a large
    weights layer and a few small ones); `percent` and `bytes_per_second` are None
    while there is nothing to measure (the manifest, the digest check).
    """

    status: str
    digest: str = ""
    completed: int = 0
    total: int = 0
    percent: float | None = None
    bytes_per_second: float | None = None

    @property
    def done(self) -> bool:
        """Whether Ollama said the model is pulled."""
        return self.status == SUCCESS


@dataclass
class PullTracker:
    """Ollama's progress lines turned into `PullProgress`, with a speed over `window` seconds.

    The sums are kept as lines come (each line changes one layer), so a line costs the
    same however many layers came before it.
    """

    clock: Callable[[], float] = time.monotonic
    window: float = SPEED_WINDOW
    _layers: dict[str, tuple[int, int]] = field(default_factory=dict)  # digest -> done, size
    _samples: deque[tuple[float, int]] = field(default_factory=deque)  # (time, bytes so far)
    _completed: int = 0
    _total: int = 0

    def step(self, line: Mapping[str, Any]) -> PullProgress:
        """The progress after one line (already checked to be a progress line)."""
        status = str(line.get("status") or "")
        digest = line.get("digest")
        speed: float | None = None
        if isinstance(digest, str) and 0 < len(digest) <= DIGEST_CAP:
            if digest not in self._layers and len(self._layers) >= LAYER_CAP:
                raise TooManyLayers(f"more than {LAYER_CAP} layers")
            # Go's omitempty: a layer's first line has no `completed`, a cached one may
            # have no `total`; a number that isn't a byte count counts as nothing new.
            done, size = self._layers.get(digest, (0, 0))
            self._completed -= _counted(done, size)
            self._total -= size
            done = _count(line.get("completed"), done)
            size = _count(line.get("total"), size)
            self._layers[digest] = (done, size)
            self._completed += _counted(done, size)
            self._total += size
            speed = self._measure(self._completed)
        else:
            digest = ""
        total, completed = self._total, self._completed
        percent = min(completed / total * 100, 100.0) if total > 0 else None
        return PullProgress(status, digest, completed, total, percent, speed)

    @property
    def completed(self) -> int:
        """Bytes of every layer so far."""
        return self._completed

    @property
    def total(self) -> int:
        """Bytes of every layer Ollama has reported."""
        return self._total

    def _measure(self, completed: int) -> float | None:
        now = self.clock()
        samples = self._samples
        samples.append((now, completed))
        # Keep the newest sample at or before the window's start as the anchor, so a
        # quiet spell longer than the window still measures from somewhere.
        while len(samples) > 2 and samples[1][0] <= now - self.window:
            samples.popleft()
        start, first = samples[0]
        if now <= start:
            return None
        return max(completed - first, 0) / (now - start)


class TooManyLayers(ValueError):
    """A pull that reports more layers than any model has (what is wrong, in words)."""


def _counted(done: int, size: int) -> int:
    """A layer's bytes so far: never past its size, once its size is known."""
    return min(done, size) if size else done


def _count(value: Any, default: int) -> int:
    """A byte count from a progress line: a whole number from 0 to `BYTES_CAP` (JSON's
    floats too, such as 1e9); anything else (NaN, Infinity, a string) leaves `default`."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    if isinstance(value, float) and not math.isfinite(value):
        return default
    if not 0 <= value <= BYTES_CAP:
        return default
    return int(value)
