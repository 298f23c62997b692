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
from routing.models import ModelInfo, NotTaken, SightFrom
from routing.parameters import SETTINGS
from routing.presets import Preset, preset_for, refuses_for, sees_for, tools_for


def resolved(
    listed: ModelInfo,
    kind: str,
    *,
    blind: frozenset[str] | set[str] = frozenset(),
    checked: Mapping[str, bool | None] | None = None,
    refused: Iterable[str] = (),
    window: int | None = None,
) -> ModelInfo:
    """The model as Sightline treats it, from what its provider's listing said.

    A refusal learned (`blind`) outranks everything; a sight check's verdict
    (`checked`: True sees, False blind, None unsure) outranks the listing and rule.
    `refused` are the settings this model refused; `window` the context window a refusal
    stated (routing/context_window.py).
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
    verdicts = checked or {}
    if listed.ref in verdicts:
        # "unsure" counts as blind: a picture must not go to a model that may drop it.
        sees, sight_from = verdicts[listed.ref] is True, SightFrom.CHECKED
    if listed.ref in blind:
        sees, sight_from = False, SightFrom.LEARNED
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
