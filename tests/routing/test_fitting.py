"""A conversation fitted to a window (routing/fitting.py): whole turns left out, oldest
first between the first and the newest, the current turn never; the same as splitting
the whole chat into turns first would give."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from routing.fitting import Fitted, fit
from routing.transcript import (
    TOOL_PICTURES_OPENING,
    Message,
    TextPart,
    ToolCall,
    ToolResult,
    starts_turn,
)


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
    fitted = fit(chat, 14, _count)  # the first turn takes 13, the second 7, the third 6
    assert fitted is not None
    assert [m.text for m in fitted.messages] == ["second", "third"]  # the whole first turn went


def test_the_first_and_the_newest_turns_are_kept() -> None:
    chat = _chat([10, 10, 10, 10, 10])
    fitted = fit(chat, 3 * 24, _count)
    assert fitted is not None
    assert [m.text[0] for m in fitted.messages if m.role == "user"] == ["0", "3", "4"]
    assert fitted.left_out == 4


def test_a_budget_filled_exactly_keeps_what_fills_it() -> None:
    # Each turn of _chat([10, ...]) takes 23.
    fitted = fit(_chat([10, 10, 10]), 2 * 23, _count)  # the current turn and the first
    assert fitted is not None
    assert [m.text[0] for m in fitted.messages if m.role == "user"] == ["0", "2"]
    fitted = fit(_chat([10, 10, 10, 10]), 3 * 23, _count)  # and the newest before it
    assert fitted is not None
    assert [m.text[0] for m in fitted.messages if m.role == "user"] == ["0", "2", "3"]
    assert fitted.tokens == 3 * 23


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


def _fitted_by_turns(messages: list[Message], budget: int) -> Fitted | None:
    """What `fit` gives, worked out the plain way: the whole chat in turns, each counted."""
    grouped: list[list[Message]] = []
    for message in messages:
        if not grouped or starts_turn(message):
            grouped.append([])
        grouped[-1].append(message)
    if not grouped:
        return Fitted((), 0, 0)
    sizes = [sum(_count(m) for m in turn) for turn in grouped]
    if sum(sizes) <= budget:
        return Fitted(tuple(messages), 0, sum(sizes))
    current = len(grouped) - 1
    used = sizes[current]
    if used > budget:
        return None
    kept = {current}
    if current > 0 and used + sizes[0] <= budget:
        kept.add(0)
        used += sizes[0]
    for index in range(current - 1, 0, -1):
        if used + sizes[index] > budget:
            break
        kept.add(index)
        used += sizes[index]
    chosen = tuple(m for i in sorted(kept) for m in grouped[i])
    return Fitted(chosen, len(messages) - len(chosen), used)


_KINDS = st.sampled_from(["user", "assistant", "tool", "pictures"])


@given(st.lists(st.tuples(_KINDS, st.integers(0, 40)), max_size=40), st.integers(-5, 600))
def test_it_keeps_what_splitting_the_whole_chat_into_turns_keeps(
    said: list[tuple[str, int]], budget: int
) -> None:
    """Turns found from the newest back, as far as they fit, are the turns of the whole
    chat: a chat opening with an answer, tool steps, and mid-turn tool pictures too."""
    chat = [
        _say("user", TOOL_PICTURES_OPENING + "x" * size)
        if kind == "pictures"
        else _say(kind, "w" * size)
        for kind, size in said
    ]
    assert fit(chat, budget, _count) == _fitted_by_turns(chat, budget)
