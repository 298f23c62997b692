"""The JSON helpers every wire and every reader of JSON share."""

from __future__ import annotations

import pytest

from routing.wires.payload import json_kind


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
