"""Who answers and who looks: table-driven over many catalogues."""

from __future__ import annotations

import pytest

from routing.errors import CannotConnect
from routing.models import ModelInfo
from routing.router import choose_auto, choose_looker, choose_offline, is_auto


def m(
    ref: str, *, sees: bool | None = False, tools: bool | None = True, local: bool = True
) -> ModelInfo:
    provider, _, name = ref.partition(":")
    return ModelInfo(provider, name, sees=sees, tools=tools, local=local)


# Local models
LLAMA = m("ollama:llama3.2:3b")  # blind, tools
LLAVA = m("ollama:llava:7b", sees=True, tools=False)  # sees, no tools
QWEN_VL = m("ollama:qwen2.5vl:3b", sees=True)  # sees, tools
GEMMA = m("lmstudio:gemma-3-270m", tools=False)  # blind, no tools
LMS_VL = m("lmstudio:gemma-3-4b", sees=True, tools=None)
# Cloud models
GPT = m("oa:gpt-4o", sees=True, local=False)
GPT_MINI = m("oa:gpt-4o-mini", sees=True, local=False)
DEEPSEEK = m("ds:deepseek-chat", sees=False, local=False)
CLAUDE = m("claude:claude-haiku-4-5", sees=True, local=False)


def test_auto_words() -> None:
    assert is_auto("auto") and is_auto("") and is_auto(" Auto ")
    assert not is_auto("ollama:llava:7b")


@pytest.mark.parametrize(
    ("models", "pictures", "tools", "cloud", "expected", "reason_has"),
    [
        # Local first, even when a cloud model is listed before it.
        ([GPT, LLAMA, LLAVA], False, False, False, LLAMA, "Auto tries local models first"),
        ([GPT, LLAMA, LLAVA], False, False, True, LLAMA, "Auto tries local models first"),
        # Pictures: a local model that sees.
        ([LLAMA, LLAVA], True, False, False, LLAVA, "sees pictures"),
        # Pictures and tools: one that sees AND uses tools beats one that only sees.
        ([LLAMA, LLAVA, QWEN_VL], True, True, False, QWEN_VL, "can use this chat's tools"),
        # Pictures and tools, no local model has both: keep the tools, describe the pictures.
        ([LLAVA, LLAMA], True, True, False, LLAMA, "will describe the pictures"),
        # Tools: a model known not to use tools is passed over.
        ([GEMMA, LLAMA], False, True, False, LLAMA, "tools"),
        # Unknown tools count as usable.
        ([GEMMA, LMS_VL], True, True, False, LMS_VL, "sees pictures"),
        # Nothing local: the cloud only when allowed.
        ([DEEPSEEK, GPT], True, False, True, GPT, "no model on this computer"),
        ([DEEPSEEK, GPT], False, False, True, DEEPSEEK, "no model on this computer"),
        # Only blind local models with a picture: still local (the describer covers it).
        ([GEMMA, GPT], True, False, True, GEMMA, "local models first; a model that sees"),
    ],
)
def test_auto(
    models: list[ModelInfo],
    pictures: bool,
    tools: bool,
    cloud: bool,
    expected: ModelInfo,
    reason_has: str,
) -> None:
    choice = choose_auto(models, has_pictures=pictures, needs_tools=tools, allow_cloud=cloud)
    assert choice.model == expected
    assert choice.by_sightline and reason_has in choice.reason
    # Where it runs is the notice's to say, once ("… (on this computer): …").
    assert choice.where() not in choice.reason.removeprefix("no model on this computer is ready")


def test_auto_without_a_local_model_and_without_cloud_permission() -> None:
    with pytest.raises(CannotConnect, match="allow Auto to use the cloud"):
        choose_auto([GPT], has_pictures=False)
    with pytest.raises(CannotConnect, match="ollama serve"):
        choose_auto([], has_pictures=False)


@pytest.mark.parametrize(
    ("models", "lost", "pictures", "expected"),
    [
        ([GPT, LLAMA, LLAVA], GPT, False, LLAMA),
        ([GPT, LLAMA, LLAVA], GPT, True, LLAVA),
        # A local provider that is down: another local provider answers, not itself.
        ([LLAMA, GEMMA], LLAMA, False, GEMMA),
    ],
)
def test_offline(
    models: list[ModelInfo], lost: ModelInfo, pictures: bool, expected: ModelInfo
) -> None:
    choice = choose_offline(models, lost, has_pictures=pictures)
    assert choice.model == expected
    assert f"{lost.ref} can't be reached" in choice.reason


def test_offline_with_nothing_local_says_so() -> None:
    with pytest.raises(CannotConnect, match="no model on this computer is ready"):
        choose_offline([GPT, CLAUDE], GPT, has_pictures=False)


@pytest.mark.parametrize(
    ("models", "chat", "configured", "expected"),
    [
        # The chat's own provider first, its small model first.
        ([GPT, GPT_MINI, CLAUDE], DEEPSEEK.__class__("oa", "o1-blind", local=False), "", GPT_MINI),
        # Then the first other provider that has a seeing model, in the person's order.
        ([CLAUDE, GPT], DEEPSEEK, "", CLAUDE),
        ([GPT_MINI, GPT, CLAUDE], DEEPSEEK, "", GPT_MINI),
        # A configured vision model goes first.
        ([GPT, CLAUDE], DEEPSEEK, "claude:claude-haiku-4-5", CLAUDE),
        # A local chat: only models on this computer may look, even a configured cloud one.
        ([GPT, LLAVA], LLAMA, "oa:gpt-4o", LLAVA),
        ([GPT, CLAUDE], LLAMA, "", None),
        # The chat's own model never looks, even if it is listed as seeing.
        ([LLAVA], LLAVA, "", None),
    ],
)
def test_who_looks(
    models: list[ModelInfo], chat: ModelInfo, configured: str, expected: ModelInfo | None
) -> None:
    choice = choose_looker(models, chat, configured=configured)
    assert (choice.model if choice else None) == expected


def test_local_looker_is_preferred_small() -> None:
    big = m("ollama:llava:34b", sees=True)
    small = m("ollama:moondream:1.8b", sees=True)
    choice = choose_looker([big, small], LLAMA)
    assert choice is not None and choice.model == small
