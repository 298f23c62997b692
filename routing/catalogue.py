"""Every ready provider's models, gathered concurrently, with the last good list kept.

A provider is *ready* when its latest listing succeeded (or an earlier one did
and the failure looks passing). Discovered providers that never answered are
simply absent; configured ones that fail keep their error for the person.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Callable, Iterable, Mapping
from dataclasses import dataclass, replace

from routing.capabilities import resolved
from routing.endpoints import endpoint_key, endpoint_name, look_up
from routing.errors import CannotConnect, ModelNotFound, ProviderError
from routing.models import ModelInfo, ProviderConfig, Verdict
from routing.refs import model_ref, split_ref
from routing.wires.base import OneModel, Wire
from routing.wires.registry import make_wire

log = logging.getLogger(__name__)


def _server(provider: ProviderConfig) -> str:
    """The provider's server by host and port (never its credentials), for messages."""
    where = endpoint_name(provider.base_url)
    return f"The server at {where}" if where else provider.id


@dataclass(frozen=True)
class ProviderStatus:
    """What the latest listing of one provider gave."""

    provider: ProviderConfig
    models: tuple[ModelInfo, ...] = ()
    error: ProviderError | None = None

    @property
    def ready(self) -> bool:
        """Whether this provider's models can be used now."""
        return bool(self.models) and self.error is None


class Catalogue:
    """The providers in use, their wires, and the models each offers."""

    def __init__(
        self,
        providers: Iterable[ProviderConfig],
        wire_factory: Callable[[ProviderConfig], Wire] = make_wire,
        blind: Iterable[str] = (),
        checked: Mapping[tuple[str, str], str] | None = None,
        refused: Iterable[tuple[str, str]] = (),
        windows: Mapping[str, int] | None = None,
        marked: Iterable[str] = (),
    ) -> None:
        self._providers = {p.id: p for p in providers}
        self._wire_factory = wire_factory
        self._wires: dict[str, Wire] = {}
        self._status: dict[str, ProviderStatus] = {}
        self._listed: dict[str, tuple[ModelInfo, ...]] = {}  # each listing as it was said
        self._alone: dict[str, ModelInfo] = {}  # models asked about alone, by ref, as said
        self._blind: set[str] = set(blind)  # refs learned not to see (earlier sessions too)
        self._marked: set[str] = set(marked)  # refs the person marked blind themselves
        # Sight checks' verdicts by (endpoint, model name), this session's and earlier ones.
        self._checked: dict[tuple[str, str], Verdict] = {
            key: Verdict(verdict) for key, verdict in (checked or {}).items()
        }
        # Settings models refused, by ref (earlier sessions too): never sent to them again.
        self._refused: dict[str, set[str]] = {}
        for ref, setting in refused:
            self._refused.setdefault(ref, set()).add(setting)
        # Context windows refusals stated, by ref (earlier sessions too).
        self._windows: dict[str, int] = dict(windows or {})

    @property
    def providers(self) -> list[ProviderConfig]:
        """The providers, in the person's order."""
        return list(self._providers.values())

    def provider(self, provider_id: str) -> ProviderConfig:
        """The provider with this id."""
        return self._providers[provider_id]

    def wire(self, provider_id: str) -> Wire:
        """The provider's wire, made on first use."""
        if provider_id not in self._wires:
            self._wires[provider_id] = self._wire_factory(self._providers[provider_id])
        return self._wires[provider_id]

    async def refresh(
        self, provider_ids: Iterable[str] | None = None, timeout: float = 10.0
    ) -> dict[str, ProviderStatus]:
        """List the providers' models concurrently; a failure keeps the last good list."""
        ids = list(provider_ids) if provider_ids is not None else list(self._providers)
        await look_up(self._providers[i].base_url for i in ids)
        results = await asyncio.gather(*(self._list(i, timeout) for i in ids))
        return dict(zip(ids, results, strict=True))

    async def refresh_each(self, timeout: float = 10.0) -> AsyncGenerator[ProviderStatus, None]:
        """Like `refresh`, but yield each provider's status as soon as it answers."""
        await look_up(p.base_url for p in self._providers.values())
        tasks = [asyncio.ensure_future(self._list(i, timeout)) for i in self._providers]
        try:
            for next_done in asyncio.as_completed(tasks):
                yield await next_done
        finally:
            for task in tasks:
                task.cancel()

    async def _list(self, provider_id: str, timeout: float) -> ProviderStatus:
        provider = self._providers[provider_id]
        try:
            models = await asyncio.wait_for(self.wire(provider_id).list_models(), timeout)
        except (ProviderError, TimeoutError) as exc:
            error = (
                exc
                if isinstance(exc, ProviderError)
                else CannotConnect(
                    f"{_server(provider)} did not list its models within {timeout:g} s. "
                    "Check it is running, or try again.",
                    provider_id=provider_id,
                )
            )
            previous = self._status.get(provider_id)
            if previous and previous.models and isinstance(error, CannotConnect):
                log.info("%s: listing failed (%s); keeping the last good list", provider_id, error)
            status = ProviderStatus(provider, previous.models if previous else (), error)
        else:
            self._listed[provider_id] = tuple(models)
            status = ProviderStatus(provider, self._resolved(provider_id))
        self._status[provider_id] = status
        return status

    def _resolved(self, provider_id: str) -> tuple[ModelInfo, ...]:
        """The provider's listed models, each with its one answer (routing/capabilities.py)."""
        provider = self._providers[provider_id]
        checks = self._checks_of(provider)
        return tuple(self._resolve(m, provider, checks) for m in self._listed.get(provider_id, ()))

    def _resolve(
        self, model: ModelInfo, provider: ProviderConfig, checks: dict[str, Verdict]
    ) -> ModelInfo:
        return resolved(
            model,
            provider.kind,
            blind=self._blind,
            checked=checks,
            marked=self._marked,
            refused=self._refused.get(model.ref, ()),
            window=self._windows.get(model.ref),
        )

    def _checks_of(self, provider: ProviderConfig) -> dict[str, Verdict]:
        """The provider's models' sight check verdicts, by ref."""
        key = endpoint_key(provider.base_url)
        return {
            model_ref(provider.id, name): verdict
            for (endpoint, name), verdict in self._checked.items()
            if endpoint == key
        }

    def learn_sight(self, model: ModelInfo, verdict: Verdict) -> tuple[str, str]:
        """Keep a sight check's verdict: the model's sight where nobody else says, else shown
        beside the listing's word, which stands. Returns its (endpoint, name) key."""
        key = (endpoint_key(self._providers[model.provider_id].base_url), model.name)
        self._checked[key] = verdict
        self._learned(model.ref)
        return key

    def _learned(self, ref: str) -> None:
        """A lesson about one model changed its answer: resolve its provider's models again."""
        provider_id, _ = split_ref(ref)
        status = self._status.get(provider_id)
        if status and provider_id in self._listed:
            self._status[provider_id] = replace(status, models=self._resolved(provider_id))

    def status(self, provider_id: str) -> ProviderStatus | None:
        """The latest status of one provider."""
        return self._status.get(provider_id)

    def statuses(self) -> list[ProviderStatus]:
        """The latest status of every provider listed so far, in the person's order."""
        return [self._status[i] for i in self._providers if i in self._status]

    def models(self) -> list[ModelInfo]:
        """Every model of every ready provider, in the person's provider order."""
        return [m for s in self.statuses() if s.ready for m in s.models]

    def find(self, ref: str) -> ModelInfo | None:
        """The model named `provider:model`, if a listing has it."""
        provider_id, name = split_ref(ref)
        status = self._status.get(provider_id)
        if status is None:
            alone = self._alone.get(ref)
            if alone is None:
                return None
            provider = self._providers[provider_id]
            return self._resolve(alone, provider, self._checks_of(provider))
        return next((m for m in status.models if m.name == name), None)

    def answer(self, model: ModelInfo) -> ModelInfo:
        """The model's one answer now: as listed and resolved, or resolved on the spot
        (a model no listing has, such as the one a person named before it was listed)."""
        found = self.find(model.ref)
        if found is not None:
            return found
        provider = self._providers[model.provider_id]
        return self._resolve(model, provider, self._checks_of(provider))

    async def resolve(self, ref: str) -> ModelInfo:
        """The model `provider:model`, listing its provider if needed; errors say what exists."""
        provider_id, name = split_ref(ref)
        if provider_id not in self._providers:
            known = ", ".join(self._providers) or "none"
            raise ModelNotFound(
                f"There is no provider {provider_id!r} (providers: {known}).",
                provider_id=provider_id,
            )
        found = self.find(ref)
        if found is not None:
            return found
        provider, wire = self._providers[provider_id], self.wire(provider_id)
        if provider_id not in self._status and isinstance(wire, OneModel):
            # A named model of a provider not listed yet is asked about alone: one request
            # rather than one for each of its models (Ollama's /api/show).
            await look_up([provider.base_url])
            one = await wire.one_model(name)
            if one is not None:
                self._alone[one.ref] = one
                return self._resolve(one, provider, self._checks_of(provider))
        status = (await self.refresh([provider_id]))[provider_id]
        if status.error is not None and not status.models:
            raise status.error
        found = self.find(ref)
        if found is None:
            available = tuple(m.name for m in status.models)
            names = ", ".join(available) or "none"
            raise ModelNotFound(
                f"{provider_id} has no model {name!r}. Available: {names}.",
                provider_id=provider_id,
                available=available,
            )
        return found

    def mark_blind(self, ref: str) -> None:
        """Treat a model as blind from now on (it refused pictures)."""
        self._blind.add(ref)
        self._learned(ref)

    def forget_blind(self, ref: str) -> None:
        """Stop treating a model as blind: its listing and rule say again whether it sees."""
        self._blind.discard(ref)
        self._learned(ref)

    def mark(self, ref: str, blind: bool) -> None:
        """The person marks a model blind (pictures go to it in words whatever its listing
        says), or takes their mark back (`blind` False)."""
        if blind:
            self._marked.add(ref)
        else:
            self._marked.discard(ref)
        self._learned(ref)

    @property
    def marked(self) -> frozenset[str]:
        """The models the person marked blind."""
        return frozenset(self._marked)

    def learn_refused(self, ref: str, setting: str) -> None:
        """Never send this setting to the model again (it refused it, naming it)."""
        self._refused.setdefault(ref, set()).add(setting)
        self._learned(ref)

    def learn_window(self, ref: str, tokens: int) -> None:
        """The model holds this many tokens (a refusal said so): fit every request to it."""
        self._windows[ref] = tokens
        self._learned(ref)

    @property
    def blind(self) -> frozenset[str]:
        """The models learned not to see."""
        return frozenset(self._blind)

    async def aclose(self) -> None:
        """Close every wire's HTTP client."""
        wires, self._wires = list(self._wires.values()), {}
        await asyncio.gather(*(w.aclose() for w in wires), return_exceptions=True)
