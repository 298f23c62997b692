"""Auto: local first, and eyes when pictures come."""

from __future__ import annotations

import pytest

from routing.errors import CannotConnect
from routing.models import ModelInfo
from routing.router import choose_auto, is_auto

CLOUD = ModelInfo("openai", "gpt-x", sees=True, local=False)
BLIND_LOCAL = ModelInfo("ollama", "llama3.2:3b", sees=False, local=True)
SEEING_LOCAL = ModelInfo("ollama", "llava:7b", sees=True, local=True)


def test_auto_words() -> None:
    assert is_auto("auto") and is_auto("") and is_auto(" Auto ")
    assert not is_auto("ollama:llava:7b")


def test_local_first_even_when_cloud_is_listed_first() -> None:
    choice = choose_auto([CLOUD, BLIND_LOCAL, SEEING_LOCAL], has_pictures=False)
    assert choice.model == BLIND_LOCAL
    assert choice.by_sightline and choice.where() == "on this computer"


def test_pictures_prefer_a_local_model_that_sees() -> None:
    choice = choose_auto([BLIND_LOCAL, SEEING_LOCAL], has_pictures=True)
    assert choice.model == SEEING_LOCAL
    assert "sees pictures" in choice.reason


def test_no_local_model_and_no_cloud_permission_says_what_to_do() -> None:
    with pytest.raises(CannotConnect, match="ollama serve"):
        choose_auto([CLOUD], has_pictures=False)
    assert choose_auto([CLOUD], has_pictures=False, allow_cloud=True).model == CLOUD
