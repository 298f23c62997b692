"""What a JSON value is, in words (routing/json_kinds.py)."""

from __future__ import annotations

import pytest

from routing.json_kinds import json_kind


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        (None, "null"),
        (True, "true"),
        (False, "false"),
        (3, "a number"),
        (2.5, "a number"),
        ("x", "a string"),
        ([], "a list"),
        ({}, "an object"),
    ],
)
def test_a_value_is_named_by_its_json_kind(value: object, kind: str) -> None:
    assert json_kind(value) == kind
