"""A model's one answer: what its listing said, its provider's rule, and what was learned.

The catalogue resolves every listed model here, once per listing or lesson, into
the `ModelInfo` everything else reads: whether it sees (and where that came
from: the listing, the preset's rule, a refusal learned, a sight check), whether
it uses tools, whether it takes PDFs as PDFs, the picture size its provider
takes, and which of a chat's settings it doesn't take (its API has no field for
it, its provider's rule, a refusal learned). Nothing outside this module combines
those facts again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from routing.context_window import resolved_window
from routing.models import ModelInfo, NotTaken, SightFrom, Verdict
from routing.parameters import SETTINGS
from routing.presets import Preset, preset_for, refuses_for, sees_for, tools_for


def resolved(
    listed: ModelInfo,
    kind: str,
    *,
    blind: frozenset[str] | set[str] = frozenset(),
    checked: Mapping[str, Verdict] | None = None,
    marked: frozenset[str] | set[str] = frozenset(),
    refused: Iterable[str] = (),
    window: int | None = None,
) -> ModelInfo:
    """The model as Sightline treats it, from what its provider's listing said.

    The person's own mark (`marked`: blind) outranks everything, then a refusal learned
    (`blind`). A sight check's verdict (`checked`, by ref) is the model's sight only where
    neither its listing nor its provider's rule says: where they do, their word stands and
    the verdict is kept beside it (`ModelInfo.checked`) to be shown. `refused` are the
    settings this model refused; `window` the context window a refusal stated
    (routing/context_window.py).
    """
    preset = preset_for(kind)
    sees = sees_for(preset, listed.name, listed.sees)
    sight_from = (
        SightFrom.LISTING
        if listed.sees is not None
        else SightFrom.PRESET
        if sees is not None
        else SightFrom.UNKNOWN
    )
    verdict = (checked or {}).get(listed.ref)
    if verdict is not None and sight_from == SightFrom.UNKNOWN:
        # "unsure" counts as blind: a picture must not go to a model that may drop it.
        sees, sight_from = verdict == Verdict.SEES, SightFrom.CHECKED
    if listed.ref in blind:
        sees, sight_from = False, SightFrom.LEARNED
    if listed.ref in marked:
        sees, sight_from = False, SightFrom.MARKED
    tokens, context_from = resolved_window(
        kind, listed.name, listed.context_length, listed.context_from, window
    )
    model = replace(
        listed,
        context_length=tokens,
        context_from=context_from,
        sees=sees,
        tools=tools_for(preset, listed.name, listed.tools),
        sight_from=sight_from,
        checked=verdict,
        picture_side=preset.max_picture_side,
        takes_pictures=preset.takes_pictures,
        not_taken=not_taken(preset, listed.name, refused),
    )
    # The preset says it (Claude), or the listing's wire does (Gemini's API, OpenAI's Responses).
    reads = preset.reads_pdfs or listed.reads_pdfs
    return replace(model, reads_pdfs=reads and model.gets_pictures)


def not_taken(
    preset: Preset, name: str, refused: Iterable[str] = ()
) -> tuple[tuple[str, NotTaken], ...]:
    """The chat's settings a model doesn't take, each with why (the first reason found)."""
    why: dict[str, NotTaken] = {s: NotTaken.API for s in SETTINGS if s not in preset.settings}
    for setting in refuses_for(preset, name):
        why.setdefault(setting, NotTaken.PRESET)
    for setting in refused:
        why.setdefault(setting, NotTaken.LEARNED)
    return tuple((s, why[s]) for s in SETTINGS if s in why)


_SAYS = {SightFrom.LISTING: "the listing", SightFrom.PRESET: "its provider's rule"}
_VERDICT = {Verdict.SEES: "it sees", Verdict.BLIND: "blind", Verdict.UNSURE: "unsure"}


def sight_note(model: ModelInfo) -> str:
    """Who says whether the model sees, in words, with a sight check's verdict beside a
    listing's word that stands ("" when only its listing or rule says, as most do).

    For example "the listing says it sees; the check said blind: the listing stands".
    """
    said = "it sees" if model.sees else "it doesn't see"
    if model.sight_from == SightFrom.MARKED:
        return "you marked it blind"
    if model.sight_from == SightFrom.LEARNED:
        return "it refused a picture, so it is treated as blind"
    if model.checked is None:
        return ""
    verdict = _VERDICT[model.checked]
    if model.sight_from == SightFrom.CHECKED:
        return f"nobody says; the sight check said {verdict}"
    says = _SAYS.get(model.sight_from, "the listing")
    agreed = model.checked != Verdict.UNSURE and (model.checked == Verdict.SEES) == model.sees
    if agreed:
        return f"{says} says {said}, and the check agreed"
    return f"{says} says {said}; the check said {verdict}: {says} stands"
