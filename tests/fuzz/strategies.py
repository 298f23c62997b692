"""Hypothesis strategies shared by the fuzz tests: JSON as servers really send it, and worse."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st

# Modest example counts keep the whole fuzz package well under a minute; set
# SIGHTLINE_FUZZ_EXAMPLES (say 5000) for a deeper run.
EXAMPLES = int(os.environ.get("SIGHTLINE_FUZZ_EXAMPLES", "150"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None)
FEW = settings(max_examples=max(EXAMPLES * 2 // 5, 10), deadline=None)  # the slower properties

# Scalars a JSON parser can hand over, including what Python's json accepts beyond the
# standard (NaN, Infinity) and integers larger than any counter.
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**20, max_value=10**40)
    | st.floats()  # NaN and ±Infinity too: json.loads takes "NaN" and "Infinity"
    | st.text(max_size=30)
    | st.sampled_from(["", "0", "12", "x", "²", "٣", "stop", "tool_use", "text_delta"])
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=16,
)


def shaped(keys: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects with some of the given keys (each with its own strategy), plus stray ones."""
    known = st.fixed_dictionaries({}, optional=keys)
    stray_keys = st.text(max_size=8).filter(lambda key: key not in keys)
    stray = st.dictionaries(stray_keys, JSON, max_size=2)
    return st.builds(lambda a, b: {**b, **a}, known, stray)


def dumps(value: Any) -> str:
    """JSON text as Python's encoder writes it (NaN and Infinity included)."""
    return json.dumps(value, separators=(",", ":"))


# Text that looks like a line of a stream some of the time, and like nothing the rest.
JUNK_TEXT = st.text(max_size=60) | st.sampled_from(
    [
        "<html><body>502 Bad Gateway</body></html>",
        "{",
        "[" * 3000,  # deeper than the json module's recursion allows
        "{}",
        "null",
        "NaN",
        '{"error":',
        "data: [DONE]",
        "\ufeff{}",
    ]
)


def known_bugs(*reasons: str) -> pytest.MarkDecorator:
    """Records the bugs a property found (all fixed since): the mark documents, it doesn't skip."""
    return pytest.mark.found_bugs(reasons="; ".join(reasons))
