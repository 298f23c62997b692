"""A model's ref, `PROVIDER:MODEL`: made, cut in two, insisted on."""

from __future__ import annotations

import pytest

from routing.agent_refs import ref_parts
from routing.models import ModelInfo
from routing.refs import ref_halves, split_ref


def test_split_ref_keeps_colons_of_the_model_name() -> None:
    assert split_ref("ollama:llama3.2:3b") == ("ollama", "llama3.2:3b")
    assert ModelInfo("ollama", "llama3.2:3b").ref == "ollama:llama3.2:3b"
    for bad in ("ollama", ":x", "ollama:"):
        with pytest.raises(ValueError, match="PROVIDER:MODEL"):
            split_ref(bad)


@pytest.mark.parametrize(
    ("ref", "halves"),
    [
        ("ollama:llama3.2:3b", ("ollama", "llama3.2:3b")),
        ("ollama", ("ollama", "")),
        (":x", ("", "x")),
        ("", ("", "")),
    ],
)
def test_a_half_written_ref_is_cut_as_written(ref: str, halves: tuple[str, str]) -> None:
    assert ref_halves(ref) == halves


def test_an_agent_ref_starts_as_a_model_ref() -> None:
    assert ref_parts(" claude:opus:4#plan ") == ("claude", "opus:4", "plan")
    assert ref_parts("codex") == ("codex", "", "")
