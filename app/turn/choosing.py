"""Who answers a model turn: the person's model when its provider can be reached, Auto's
pick, or, when the chosen provider can't be reached, a model on this computer.

routing/router.py decides among listed models; this asks the catalogue for them
(listing it first when needed) and falls back only to providers on this computer.
When Sightline chose, a routing notice says which and why (`routing_notice`).
"""

from __future__ import annotations

from dataclasses import dataclass

from routing import crossing_notices
from routing.catalogue import Catalogue
from routing.endpoints import endpoint_name
from routing.errors import CannotConnect, ProviderError, TimedOut
from routing.models import ModelInfo
from routing.refs import ref_halves
from routing.router import Choice, RoutingPrefs, choose_auto, choose_offline, is_auto
from routing.transcript import Notice


@dataclass(frozen=True)
class Needs:
    """What the turn needs of whoever answers it."""

    pictures: bool = False
    tools: bool = False


async def choose(
    catalogue: Catalogue, prefs: RoutingPrefs, requested: str, needs: Needs, unreachable: set[str]
) -> Choice:
    """The person's model if it can be reached; else Auto's pick, or an offline one."""
    if is_auto(requested):
        if not catalogue.models():
            await catalogue.refresh()
        return choose_auto(
            catalogue.models(),
            has_pictures=needs.pictures,
            needs_tools=needs.tools,
            allow_cloud=prefs.auto_may_use_cloud,
        )
    try:
        return Choice(await catalogue.resolve(requested), "your choice", False)
    except (CannotConnect, TimedOut) as error:
        return await offline(
            catalogue, _unresolved(catalogue, requested), needs, error, unreachable
        )


async def offline(
    catalogue: Catalogue, lost: ModelInfo, needs: Needs, error: ProviderError, unreachable: set[str]
) -> Choice:
    """A model on this computer answers when the chosen one's provider can't be reached
    (`error` again when none can)."""
    unreachable.add(lost.provider_id)
    # Only providers on this computer are asked: the fallback never goes to the cloud.
    others = [p.id for p in catalogue.providers if p.id not in unreachable and p.is_local]
    await catalogue.refresh(others)
    reachable = [m for m in catalogue.models() if m.provider_id not in unreachable]
    try:
        return choose_offline(reachable, lost, has_pictures=needs.pictures, needs_tools=needs.tools)
    except CannotConnect:
        raise error from None


def _unresolved(catalogue: Catalogue, ref: str) -> ModelInfo:
    provider_id, name = ref_halves(ref)
    provider = catalogue.provider(provider_id)
    return ModelInfo(provider_id, name, local=provider.is_local)


def routing_notice(catalogue: Catalogue, choice: Choice, verb: str = "answers") -> Notice:
    """The notice that says who Sightline chose, where it runs, and why (a crossing when it
    runs off this computer: routing/crossing_notices.py)."""
    provider = catalogue.provider(choice.model.provider_id)
    return crossing_notices.routing_notice(
        choice, endpoint_name(provider.base_url), provider.is_local, verb
    )
