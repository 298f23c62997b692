"""Listing models for the picker (app/presenters/model_lister.py), against the loopback
Ollama: a listing asked for while one runs, and one asked for as one ends."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from app.config import Config
from app.presenters.listing import ModelListing
from app.presenters.model_lister import ModelLister
from routing.catalogue import Catalogue
from tests.servers.ollama import FakeOllama

PULLED = "moondream:1.8b"  # in the loopback Ollama's library, not installed


async def _until(condition: Callable[[], bool], timeout_s: float = 10.0) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.01)


def _names(listing: ModelListing) -> list[str]:
    return [m.name for m in listing.models]


async def test_a_listing_asked_for_as_one_ends_runs_after_it(
    tmp_path: Path, catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    # Local models pulls a model while a listing runs, and asks for another when that one
    # ends (app/ui/models/model_manager.py): asked from the end's own telling, it must
    # neither be dropped as "one is under way" nor begin inside that telling.
    heard: list[ModelListing] = []
    telling = False
    told_inside: list[ModelListing] = []

    def changed(listing: ModelListing) -> None:
        nonlocal telling
        if telling:
            told_inside.append(listing)
        heard.append(listing)
        ended = [h for h in heard if not h.listing]
        if not listing.listing and len(ended) == 1:
            model = fake_ollama.in_library(PULLED)
            assert model is not None
            fake_ollama.install(model)  # pulled while that listing ran
            telling = True
            try:
                lister.refresh()
            finally:
                telling = False

    lister = ModelLister(Config(tmp_path / "data"), tmp_path / "config.toml", changed)
    await lister.use(catalogue)
    await _until(lambda: sum(not h.listing for h in heard) == 2)
    first_end = next(h for h in heard if not h.listing)
    assert PULLED not in _names(first_end)
    assert PULLED in _names(lister.listing) and not lister.listing.listing
    assert told_inside == []
    await lister.aclose()


async def test_a_listing_asked_for_while_one_runs_changes_nothing(
    tmp_path: Path, catalogue: Catalogue
) -> None:
    heard: list[ModelListing] = []
    lister = ModelLister(Config(tmp_path / "data"), tmp_path / "config.toml", heard.append)
    await lister.use(catalogue)
    lister.refresh()  # the listing begun by `use` is still running
    await _until(lambda: any(not h.listing for h in heard))
    await asyncio.sleep(0.2)  # time enough for a second listing to begin, were there one
    assert sum(not h.listing for h in heard) == 1
    assert lister.listing.models
    await lister.aclose()


async def test_a_closed_lister_lists_no_more(tmp_path: Path, catalogue: Catalogue) -> None:
    # What asks after the window closed (a listing asked for as the last one ends runs
    # after it, a loop turn later) starts nothing on a closed catalogue.
    heard: list[ModelListing] = []
    lister = ModelLister(Config(tmp_path / "data"), tmp_path / "config.toml", heard.append)
    await lister.use(catalogue)
    await _until(lambda: any(not h.listing for h in heard))
    await lister.aclose()
    told = len(heard)
    lister.refresh()
    await asyncio.sleep(0.2)  # time enough for a listing to begin, were there one
    assert heard[told:] == []
