"""A blind model's request: this turn's pictures described, earlier ones a line, none left."""

from __future__ import annotations

import pytest

from routing.describing.describer import Describer
from routing.describing.framing import TurnBudget, earlier_picture, nobody_can_look, over_budget
from routing.describing.looker import WireLooker
from routing.describing.request import in_words, without_pictures
from routing.endpoints import endpoint_name
from routing.transcript import (
    Message,
    PicturePart,
    TextPart,
    ToolCall,
    ToolResult,
    has_pictures,
    turn_start,
    user_message,
)
from tests.pictures import numbered_picture
from tests.routing.conftest import LOOKER
from tests.servers.ollama import FakeOllama, Reply


def tool_step(number: int, *, text: str = "read 5x5 pixels", error: bool = False) -> list[Message]:
    """An assistant's read_file call and its result: words and one picture."""
    call = ToolCall(f"call_{number}", "read_file", {"path": f"p{number}.png"})
    result = ToolResult(
        call.id,
        "read_file",
        (TextPart(text), PicturePart(numbered_picture(number))),
        is_error=error,
    )
    return [Message("assistant", (call,)), Message("tool", (result,))]


def transcript() -> tuple[Message, ...]:
    """An earlier turn with a picture, then this turn: an attachment and a tool picture."""
    return (
        user_message("what was this?", (numbered_picture(1),)),
        Message("assistant", (TextPart("A square."),)),
        user_message("and these?", (numbered_picture(2, "photo.jpg"),)),
        *tool_step(3),
    )


def sent_pictures(messages: tuple[Message, ...]) -> int:
    """How many pictures the messages still carry."""
    return sum(len(m.pictures) + sum(len(r.pictures) for r in m.tool_results) for m in messages)


async def test_this_turns_pictures_are_described_earlier_ones_become_a_line(
    looker: WireLooker, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue(
        Reply(text="A photo of a dog.", prompt_eval_count=100, eval_count=20),
        Reply(text="A 5x5 orange tile.", prompt_eval_count=90, eval_count=10),
    )
    messages = transcript()
    result = await in_words(
        messages,
        turn_from=turn_start(messages),
        describer=Describer(),
        looker=looker,
        budget=TurnBudget(),
    )
    assert sent_pictures(result.messages) == 0
    assert len(fake_ollama.chat_requests()) == 2  # never the earlier turn's picture
    earlier, _answer, attached, call, tool = result.messages
    assert earlier.text == "what was this?\n" + earlier_picture(numbered_picture(1))
    assert attached.text.startswith('and these?\n[Description of "photo.jpg"')
    assert {"A photo of a dog.", "A 5x5 orange tile."} == {
        d.text for _, d in result.fresh
    }  # in whichever order the two looks came back
    assert call == messages[3]
    [described] = tool.tool_results
    assert (described.call_id, described.name, described.is_error) == ("call_3", "read_file", False)
    # The tool's words stay first; the picture's words are appended.
    assert described.parts[0] == TextPart("read 5x5 pixels")
    added = described.parts[1]
    assert isinstance(added, TextPart) and added.text.startswith('[Description of "p3.png"')
    assert [p.sha256 for p in result.asked] == [
        numbered_picture(2).sha256,
        numbered_picture(3).sha256,
    ]
    assert (result.input_tokens, result.output_tokens) == (190, 30)


async def test_a_kept_description_serves_an_earlier_turn(
    looker: WireLooker, fake_ollama: FakeOllama
) -> None:
    describer = Describer()
    await describer.describe(numbered_picture(1), looker)
    messages = (*transcript()[:2], user_message("thanks"))
    result = await in_words(
        messages, turn_from=2, describer=describer, looker=looker, budget=TurnBudget()
    )
    assert "[Description of" in result.messages[0].text
    assert result.fresh == [] and result.asked == []
    assert len(fake_ollama.chat_requests()) == 1  # only the first describe


async def test_a_tool_error_with_a_picture_stays_an_error(looker: WireLooker) -> None:
    messages = (user_message("go"), *tool_step(4, text="permission denied", error=True))
    result = await in_words(
        messages, turn_from=0, describer=Describer(), looker=looker, budget=TurnBudget()
    )
    [described] = result.messages[-1].tool_results
    assert described.is_error and described.text.startswith("permission denied\n[Description")
    assert not described.pictures


async def test_one_picture_in_two_places_is_looked_at_once(
    looker: WireLooker, fake_ollama: FakeOllama
) -> None:
    same = numbered_picture(5)
    messages = (user_message("twice", (same, same)), *tool_step(5))
    result = await in_words(
        messages, turn_from=0, describer=Describer(), looker=looker, budget=TurnBudget(cap=1)
    )
    assert len(fake_ollama.chat_requests()) == 1
    assert len(result.fresh) == 1 and len(result.asked) == 1 and result.past_budget == []
    assert result.messages[0].text.count("[Description of") == 2
    assert "[Description of" in result.messages[-1].tool_results[0].text


async def test_without_a_looker_every_picture_is_a_note(fake_ollama: FakeOllama) -> None:
    messages = transcript()
    result = await in_words(
        messages, turn_from=2, describer=Describer(), looker=None, budget=TurnBudget()
    )
    assert sent_pictures(result.messages) == 0 and fake_ollama.chat_requests() == []
    assert nobody_can_look(numbered_picture(2, "photo.jpg")) in result.messages[2].text
    assert nobody_can_look(numbered_picture(3)) in result.messages[4].tool_results[0].text
    assert result.asked == [] and result.input_tokens == 0


def test_the_last_guard_leaves_no_picture() -> None:
    messages = transcript()
    assert all(has_pictures(m) for m in (messages[0], messages[2], messages[4]))
    guarded = without_pictures(messages)
    assert sent_pictures(guarded) == 0 and not any(has_pictures(m) for m in guarded)
    assert guarded[1] is messages[1] and guarded[3] is messages[3]  # untouched without pictures
    [result] = guarded[4].tool_results
    assert result.text == "read 5x5 pixels\n" + earlier_picture(numbered_picture(3))


async def test_the_looker_says_who_and_where(looker: WireLooker, fake_ollama: FakeOllama) -> None:
    assert looker.label == LOOKER
    assert looker.host == f"127.0.0.1:{fake_ollama.port}"


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("http://127.0.0.1:11434", "127.0.0.1:11434"),
        ("https://api.openai.com/v1", "api.openai.com"),
        ("http://user:secret@gpu.lan:8080/v1", "gpu.lan:8080"),
        ("http://[::1]:1234/v1", "[::1]:1234"),
        ("127.0.0.1:11434", "127.0.0.1:11434"),
    ],
)
def test_an_endpoint_is_named_by_host_and_port_only(url: str, host: str) -> None:
    assert endpoint_name(url) == host


async def test_pictures_past_the_budget_are_listed(
    looker: WireLooker, fake_ollama: FakeOllama
) -> None:
    messages = transcript()
    result = await in_words(
        messages, turn_from=2, describer=Describer(), looker=looker, budget=TurnBudget(cap=1)
    )
    assert [p.label for p in result.asked] == ["photo.jpg"]
    assert [p.label for p in result.past_budget] == ["p3.png"]
    assert over_budget(numbered_picture(3), 1) in result.messages[4].tool_results[0].text
    assert len(fake_ollama.chat_requests()) == 1
