"""A model's one answer: the listing's word, else its provider's rule; learning beats both."""

from __future__ import annotations

import pytest

from routing.capabilities import resolved, sight_note
from routing.models import ModelInfo, SightFrom, Verdict


@pytest.mark.parametrize(
    ("kind", "names", "sees"),
    [
        (
            "groq",
            ["meta-llama/llama-4-scout-17b-16e-instruct", "llama-3.3-70b-versatile"],
            [True, False],
        ),
        ("deepseek", ["deepseek-chat", "deepseek-reasoner"], [False, False]),
        ("xai", ["grok-2-vision-1212", "grok-3-mini"], [True, False]),
        ("openai", ["gpt-4o-mini", "o3"], [True, True]),
    ],
)
def test_a_mute_listing_falls_back_to_the_preset_rule(
    kind: str, names: list[str], sees: list[bool]
) -> None:
    models = [resolved(ModelInfo(kind, name), kind) for name in names]
    assert [(m.sees, m.sight_from) for m in models] == [(s, SightFrom.PRESET) for s in sees]


def test_the_listing_beats_the_rule_and_a_refusal_beats_both() -> None:
    listed = ModelInfo("oa", "gpt-4o-mini", sees=False)
    assert resolved(listed, "openai").sight_from == SightFrom.LISTING
    assert resolved(listed, "openai").sees is False
    learned = resolved(
        ModelInfo("oa", "gpt-4o-mini", sees=True), "openai", blind={"oa:gpt-4o-mini"}
    )
    assert (learned.sees, learned.sight_from, learned.gets_pictures) == (
        False,
        SightFrom.LEARNED,
        False,
    )


def test_a_check_says_where_nobody_does_and_unsure_counts_as_blind() -> None:
    model = ModelInfo("mine", "my-model")
    assert resolved(model, "custom").sight_from == SightFrom.UNKNOWN
    seen = resolved(model, "custom", checked={"mine:my-model": Verdict.SEES})
    unsure = resolved(model, "custom", checked={"mine:my-model": Verdict.UNSURE})
    assert (seen.sees, seen.sight_from, seen.checked) == (True, SightFrom.CHECKED, Verdict.SEES)
    assert (unsure.sees, unsure.gets_pictures) == (False, False)
    assert sight_note(seen) == "nobody says; the sight check said it sees"


@pytest.mark.parametrize("verdict", [Verdict.BLIND, Verdict.UNSURE])
def test_a_check_never_overrides_the_listing_it_is_shown_beside_it(verdict: Verdict) -> None:
    listed = ModelInfo("ollama", "llava:7b", sees=True)
    model = resolved(listed, "ollama", checked={"ollama:llava:7b": verdict})
    assert (model.sees, model.sight_from, model.checked) == (True, SightFrom.LISTING, verdict)
    assert model.gets_pictures
    assert sight_note(model) == (
        f"the listing says it sees; the check said {verdict}: the listing stands"
    )
    ruled = resolved(ModelInfo("oa", "gpt-4o-mini"), "openai", checked={"oa:gpt-4o-mini": verdict})
    assert (ruled.sees, ruled.sight_from) == (True, SightFrom.PRESET)
    agreed = resolved(listed, "ollama", checked={"ollama:llava:7b": Verdict.SEES})
    assert sight_note(agreed) == "the listing says it sees, and the check agreed"
    # A refusal still makes it blind, as before.
    healed = resolved(listed, "ollama", checked={"ollama:llava:7b": verdict}, blind={listed.ref})
    assert (healed.sees, healed.sight_from) == (False, SightFrom.LEARNED)


def test_the_persons_mark_outranks_the_listing_the_check_and_a_refusal() -> None:
    listed = ModelInfo("ollama", "llava:7b", sees=True)
    checked = {"ollama:llava:7b": Verdict.SEES}
    marked = resolved(listed, "ollama", checked=checked, blind={listed.ref}, marked={listed.ref})
    assert (marked.sees, marked.sight_from, marked.gets_pictures) == (
        False,
        SightFrom.MARKED,
        False,
    )
    assert sight_note(marked) == "you marked it blind"


def test_unknown_sight_gets_pictures_only_where_the_provider_takes_them() -> None:
    assert resolved(ModelInfo("mine", "x"), "custom").gets_pictures is True
    assert resolved(ModelInfo("ds", "x"), "deepseek").gets_pictures is False


def test_pdfs_and_picture_size_follow_the_provider() -> None:
    claude = resolved(ModelInfo("claude", "claude-sonnet-4-5"), "anthropic")
    blind_claude = resolved(ModelInfo("claude", "claude-text", sees=False), "anthropic")
    local = resolved(ModelInfo("ollama", "llava:7b", sees=True), "ollama")
    assert (claude.reads_pdfs, claude.picture_side) == (True, 1568)
    assert blind_claude.reads_pdfs is False  # a PDF carries pages: only for one that sees
    assert (local.reads_pdfs, local.picture_side) == (False, 2048)
