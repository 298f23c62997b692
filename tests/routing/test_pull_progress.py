"""One pull's progress (routing/pull_progress.py): the layers' sums, strict numbers, speed."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from routing.pull_progress import (
    BYTES_CAP,
    DIGEST_CAP,
    LAYER_CAP,
    SPEED_WINDOW,
    PullProgress,
    PullTracker,
    TooManyLayers,
)
from tests.clocks import HandClock


def test_progress_adds_up_the_layers_and_measures_percent() -> None:
    tracker = PullTracker(clock=HandClock())
    assert tracker.step({"status": "pulling manifest"}) == PullProgress("pulling manifest")
    first = tracker.step({"status": "pulling aaaa", "digest": "sha256:a", "total": 1000})
    assert (first.completed, first.total, first.percent) == (0, 1000, 0.0)
    half = tracker.step(
        {"status": "pulling aaaa", "digest": "sha256:a", "total": 1000, "completed": 500}
    )
    assert half.percent == 50.0 and half.digest == "sha256:a"
    # A small second layer joins the total; the first stays counted.
    other = tracker.step(
        {"status": "pulling bbbb", "digest": "sha256:b", "total": 1000, "completed": 250}
    )
    assert (other.completed, other.total, other.percent) == (750, 2000, 37.5)
    verifying = tracker.step({"status": "verifying sha256 digest"})
    assert verifying.completed == 750 and verifying.bytes_per_second is None
    assert not verifying.done and tracker.step({"status": "success"}).done


def test_progress_ignores_numbers_that_are_not_numbers_and_never_passes_the_total() -> None:
    tracker = PullTracker(clock=HandClock())
    tracker.step({"status": "pulling a", "digest": "sha256:a", "total": 100, "completed": 40})
    odd = tracker.step(
        {"status": "pulling a", "digest": "sha256:a", "total": "lots", "completed": True}
    )
    assert (odd.completed, odd.total) == (40, 100)
    over = tracker.step({"status": "pulling a", "digest": "sha256:a", "completed": 250})
    assert (over.completed, over.percent) == (100, 100.0)


@pytest.mark.parametrize(
    "number",
    [math.nan, math.inf, -math.inf, -1, -0.5, BYTES_CAP + 1, 1e300, 10**400, "12", None, [3]],
    ids=["nan", "inf", "-inf", "-1", "-0.5", "past-cap", "1e300", "10**400", "str", "null", "list"],
)
def test_a_number_that_is_no_byte_count_leaves_what_was_known(number: object) -> None:
    """NaN and Infinity (which Python's JSON reads), negatives and absurd sizes: ignored."""
    tracker = PullTracker(clock=HandClock())
    tracker.step({"status": "pulling a", "digest": "sha256:a", "total": 1000, "completed": 400})
    odd = tracker.step(
        {"status": "pulling a", "digest": "sha256:a", "total": number, "completed": number}
    )
    assert (odd.completed, odd.total, odd.percent) == (400, 1000, 40.0)
    fresh = tracker.step({"status": "pulling b", "digest": "sha256:b", "total": number})
    assert (fresh.completed, fresh.total) == (400, 1000)


def test_a_whole_float_and_the_cap_itself_are_counted() -> None:
    tracker = PullTracker(clock=HandClock())
    progress = tracker.step(
        {"status": "pulling a", "digest": "sha256:a", "total": BYTES_CAP, "completed": 1e9}
    )
    assert (progress.completed, progress.total) == (1_000_000_000, BYTES_CAP)
    assert isinstance(progress.completed, int)


def test_a_digest_longer_than_any_digest_is_no_layer() -> None:
    tracker = PullTracker(clock=HandClock())
    line = {"status": "pulling", "digest": "sha256:" + "a" * DIGEST_CAP, "total": 10}
    assert tracker.step(line) == PullProgress("pulling")


def test_more_layers_than_any_model_has_are_too_many() -> None:
    tracker = PullTracker(clock=HandClock())
    for n in range(LAYER_CAP):
        tracker.step({"status": "pulling", "digest": f"sha256:{n}", "total": 1, "completed": 1})
    assert (tracker.completed, tracker.total) == (LAYER_CAP, LAYER_CAP)
    again = tracker.step({"status": "pulling", "digest": "sha256:0", "total": 2, "completed": 2})
    assert again.total == LAYER_CAP + 1  # a layer seen before still moves
    with pytest.raises(TooManyLayers, match=f"more than {LAYER_CAP} layers"):
        tracker.step({"status": "pulling", "digest": "sha256:one more", "total": 1})


_DIGESTS = st.sampled_from(["sha256:a", "sha256:b", "sha256:c", "", None])
_NUMBERS = st.one_of(
    st.none(),
    st.integers(-5, 3000),
    st.floats(allow_nan=True, allow_infinity=True),
    st.just(BYTES_CAP * 2),
)
_LINES = st.lists(st.tuples(_DIGESTS, _NUMBERS, _NUMBERS), max_size=40)


@given(_LINES)
def test_the_running_sums_are_the_sums_of_the_layers(lines: list[tuple]) -> None:
    """However a layer's numbers move (a cached layer's size coming late, numbers that are
    none), the sums kept as lines come are what adding up every layer gives."""
    tracker = PullTracker(clock=HandClock())
    layers: dict[str, tuple[int, int]] = {}

    def count(value: object, default: int) -> int:
        if isinstance(value, int) and 0 <= value <= BYTES_CAP:
            return value
        if isinstance(value, float) and math.isfinite(value) and 0 <= value <= BYTES_CAP:
            return int(value)
        return default

    for digest, completed, total in lines:
        line: dict[str, object] = {"status": "pulling", "completed": completed, "total": total}
        if digest is not None:
            line["digest"] = digest
        progress = tracker.step(line)
        if digest:
            done, size = layers.get(digest, (0, 0))
            layers[digest] = (count(completed, done), count(total, size))
        assert progress.total == sum(size for _, size in layers.values())
        assert progress.completed == sum(min(d, s) if s else d for d, s in layers.values())


def test_speed_is_measured_over_the_last_few_seconds() -> None:
    clock = HandClock()
    tracker = PullTracker(clock=clock)

    def at(seconds: float, completed: int) -> float | None:
        clock.now = 100.0 + seconds
        line = {"status": "pulling a", "digest": "sha256:a", "total": 10**9, "completed": completed}
        return tracker.step(line).bytes_per_second

    assert at(0, 0) is None  # nothing to measure from yet
    assert at(1, 10_000_000) == pytest.approx(10_000_000)
    assert at(2, 20_000_000) == pytest.approx(10_000_000)
    # Faster now: after the window has passed, only the recent pace counts.
    at(3, 50_000_000)
    at(4, 80_000_000)
    at(5, 110_000_000)
    # From the sample at the window's start (4 s, 80 MB): 150 MB in 5 s.
    assert at(SPEED_WINDOW + 4, 230_000_000) == pytest.approx(30_000_000)
    # A long quiet spell measures from the last sample before it, not from nothing.
    assert at(30, 230_000_000) == pytest.approx(0.0)
