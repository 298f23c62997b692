"""What the chat area says when no model is ready, without a window: each address tried,
what happened there, and what to do."""

from __future__ import annotations

from pathlib import Path

from app.presenters.listing import ModelListing
from app.presenters.model_status import LOOKING, NOTHING_READY, explain
from routing.catalogue import ProviderStatus
from routing.errors import CannotConnect
from routing.models import ModelInfo, ProviderConfig


def _provider(port: int = 11434, kind: str = "ollama") -> ProviderConfig:
    return ProviderConfig(id="ollama", kind=kind, base_url=f"http://127.0.0.1:{port}")


def test_the_panel_names_each_address_and_what_to_do(tmp_path: Path) -> None:
    provider = _provider(9)
    error = CannotConnect("Nothing answered at 127.0.0.1:9.", provider_id="ollama")
    listing = ModelListing(
        statuses=(ProviderStatus(provider, (), error),),
        providers=(provider,),
        config_path=tmp_path / "config.toml",
    )
    said = explain(listing)
    assert said.title == NOTHING_READY
    assert said.tried == (("127.0.0.1:9 (ollama)", "Nothing answered at 127.0.0.1:9."),)
    assert "ollama serve" in said.advice and "OLLAMA_HOST" in said.advice
    assert str(tmp_path / "config.toml") in said.advice


def test_the_panel_does_not_say_twice_what_the_error_said(tmp_path: Path) -> None:
    provider = _provider()
    error = CannotConnect(
        "Can't reach Ollama at localhost:11434. Start it with `ollama serve`.", provider_id="ollama"
    )
    listing = ModelListing(
        statuses=(ProviderStatus(provider, (), error),),
        providers=(provider,),
        config_path=tmp_path / "config.toml",
    )
    said = explain(listing)
    everything = " ".join(outcome for _, outcome in said.tried) + " " + said.advice
    assert everything.count("ollama serve") == 1
    assert said.advice.startswith("Add a provider in Settings ▸ Providers")


def test_an_empty_ollama_is_told_to_pull_a_model(tmp_path: Path) -> None:
    provider = _provider()
    listing = ModelListing(
        statuses=(ProviderStatus(provider, ()),),
        providers=(provider,),
        config_path=tmp_path / "c.toml",
    )
    said = explain(listing)
    assert "offers no models" in said.tried[0][1]
    assert said.advice.startswith("Download a model with `ollama pull")


def test_no_provider_at_all_and_listing_in_progress(tmp_path: Path) -> None:
    assert explain(ModelListing(tmp_path / "c.toml", listing=True)).title == LOOKING
    said = explain(ModelListing(config_path=tmp_path / "c.toml"))
    assert said.title == NOTHING_READY and said.tried[0][0] == "No provider"
    local = (ModelInfo("ollama", "m", local=True),)
    assert not ModelListing(tmp_path / "c.toml", models=local).nothing_ready
