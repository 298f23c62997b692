"""A JSON object read field by field: each kind checked, a wrong one named by its JSON path,
nothing echoed whole."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from app.store.fields import FieldError, Fields, checked_json


def fields(raw: object, where: str = "items[3]") -> Fields:
    return Fields(raw, where)


def test_only_an_object_is_read_and_the_top_level_is_named_so() -> None:
    for raw, kind in (([], "a list"), (None, "null"), ("chat", "a string"), (7, "a number")):
        with pytest.raises(FieldError, match=f"^the top level must be an object, not {kind}$"):
            Fields(raw, "")


def test_each_kind_is_read_and_a_wrong_one_names_its_place() -> None:
    item = fields({"text": "hi", "n": 3, "t": 1.5, "on": False, "args": {"a": [1, "b"]}})
    assert (item.text("text"), item.whole("n"), item.number("t"), item.flag("on")) == (
        "hi",
        3,
        1.5,
        False,
    )
    assert item.mapping("args") == {"a": [1, "b"]}
    reads: list[tuple[Callable[[str], object], str, str]] = [
        (item.text, "n", "items[3].n must be a string, not a number"),
        (item.whole, "text", "items[3].text must be a whole number, not a string"),
        (item.whole, "t", "items[3].t must be a whole number, not a number"),
        (item.number, "on", "items[3].on must be a number, not false"),
        (item.flag, "n", "items[3].n must be true or false, not a number"),
        (item.mapping, "text", "items[3].text must be an object, not a string"),
        (item.text, "missing", "items[3] has no 'missing' (a string)"),
    ]
    for read, key, words in reads:
        with pytest.raises(FieldError) as caught:
            read(key)
        assert str(caught.value) == words


def test_a_default_stands_in_for_a_missing_field_but_never_for_a_wrong_one() -> None:
    item = fields({"label": 5})
    assert item.text("name", "") == ""
    with pytest.raises(FieldError, match="label must be a string, not a number"):
        item.text("label", "")


def test_a_choice_names_the_choices_and_quotes_a_wrong_value_cut_short() -> None:
    item = fields({"kind": "x" * 10_000})
    with pytest.raises(FieldError) as caught:
        item.choice("kind", ("info", "error"))
    message = str(caught.value)
    assert message.startswith("items[3].kind must be one of error, info, not 'xxx")
    assert len(message) < 120


def test_numbers_are_finite_and_wholes_are_not_true_or_false() -> None:
    item = fields({"at": float("inf"), "id": True, "n": -1})
    with pytest.raises(FieldError, match="at must be a finite number"):
        item.number("at")
    with pytest.raises(FieldError, match="id must be a whole number, not true"):
        item.whole("id")
    with pytest.raises(FieldError, match="n must be at least 0, not -1"):
        item.whole("n")


def test_a_lone_surrogate_is_refused_wherever_it_is() -> None:
    lone = json.loads('"a\\ud800b"')
    with pytest.raises(FieldError, match=r"items\[3\].text holds a lone surrogate"):
        fields({"text": lone}).text("text")
    with pytest.raises(FieldError, match=r"items\[3\].arguments holds a lone surrogate"):
        fields({"arguments": {"deep": [{"k": lone}]}}).mapping("arguments")
    with pytest.raises(FieldError, match="lone surrogate"):
        checked_json({lone: 1}, "args")  # in a key too


def test_free_form_json_as_deep_as_the_parser_allows_is_walked_without_the_stack() -> None:
    deep = json.loads("[" * 900 + "1e400" + "]" * 900)  # 1e400 parses as infinity
    with pytest.raises(FieldError, match="too large for JSON"):
        checked_json(deep, "args")


def test_lists_of_objects_name_each_by_its_index() -> None:
    item = fields({"parts": [{"type": "text"}, 3]})
    with pytest.raises(
        FieldError, match=r"^items\[3\]\.parts\[1\] must be an object, not a number$"
    ):
        item.objects("parts")
    assert fields({}).objects("parts", []) == []
