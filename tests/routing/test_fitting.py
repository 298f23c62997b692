"""A conversation fitted to a window (routing/fitting.py): whole turns left out, oldest
first between the first and the newest, the current turn never."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from routing.fitting import fit, turns
from routing.transcript import Message, TextPart, ToolCall, ToolResult


def _say(role: str, text: str) -> Message:
    return Message(role, (TextPart(text),))  # type: ignore[arg-type]


def _count(message: Message) -> int:
    return len(message.text) + 1


def _chat(sizes: list[int]) -> list[Message]:
    messages: list[Message] = []
    for number, size in enumerate(sizes):
        messages += [_say("user", f"{number}" + "u" * size), _say("assistant", "a" * size)]
    return messages


def test_a_tool_step_stays_with_its_turn() -> None:
    call = ToolCall("c1", "read_file", {"path": "a"})
    chat = [
        _say("user", "first"),
        Message("assistant", (call,)),
        Message("tool", (ToolResult("c1", "read_file", (TextPart("x" * 50),)),)),
        _say("assistant", "done"),
        _say("user", "second"),
        _say("user", "third"),
    ]
    assert [len(t) for t in turns(chat)] == [4, 1, 1]
    fitted = fit(chat, 14, _count)  # the first turn takes 13, the second 7, the third 6
    assert fitted is not None
    assert [m.text for m in fitted.messages] == ["second", "third"]  # the whole first turn went


def test_the_first_and_the_newest_turns_are_kept() -> None:
    chat = _chat([10, 10, 10, 10, 10])
    fitted = fit(chat, 3 * 24, _count)
    assert fitted is not None
    assert [m.text[0] for m in fitted.messages if m.role == "user"] == ["0", "3", "4"]
    assert fitted.left_out == 4


def test_a_current_turn_larger_than_the_budget_fits_nowhere() -> None:
    assert fit(_chat([5, 100]), 50, _count) is None


@given(st.lists(st.integers(0, 60), min_size=1, max_size=30), st.integers(0, 2000))
def test_what_goes_fits_keeps_the_current_turn_and_its_order(sizes: list[int], budget: int) -> None:
    chat = _chat(sizes)
    fitted = fit(chat, budget, _count)
    current = chat[-2:]
    if fitted is None:
        assert sum(_count(m) for m in current) > budget
        return
    assert fitted.tokens == sum(_count(m) for m in fitted.messages) <= budget
    assert list(fitted.messages[-2:]) == current
    positions = [next(i for i, c in enumerate(chat) if c is m) for m in fitted.messages]
    assert positions == sorted(positions)  # in order, nothing invented
    assert fitted.left_out == len(chat) - len(fitted.messages)
    assert len(fitted.messages) % 2 == 0  # whole turns only
