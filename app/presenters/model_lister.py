"""Listing every provider's models for the picker, as each provider answers.

After new settings the last listing's providers stay in the picker until each answers
again (rather than the picker flashing empty); a listing of providers that new settings
replaced is dropped when it ends.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from app.presenters.listing import ModelListing

# asyncio is imported by the methods that use it, after the window's first paint.
if TYPE_CHECKING:
    import asyncio
    from pathlib import Path

    from app.config import Config
    from routing.catalogue import Catalogue, ProviderStatus

log = logging.getLogger(__name__)


class ModelLister:
    """The catalogue in use, and the listing of its models it tells `changed` of."""

    def __init__(
        self, config: Config, config_path: Path, changed: Callable[[ModelListing], None]
    ) -> None:
        self.config = config  # the window's, replaced by new settings
        self.config_path = config_path
        self._changed = changed
        self.catalogue: Catalogue | None = None
        self.listing = ModelListing(listing=True, config_path=config_path)
        self._carried: dict[str, ProviderStatus] = {}  # the last listing's, while relisting
        self._task: asyncio.Task[None] | None = None
        self._ending = False  # the listing is telling of its end (`_list`)
        self._closed = False  # `aclose` ran: nothing lists again

    async def use(self, catalogue: Catalogue) -> Catalogue | None:
        """List `catalogue`'s models from now on; returns the catalogue it replaces."""
        import asyncio  # after the first paint (see the imports)

        old, self.catalogue = self.catalogue, catalogue
        if old is not None:
            kept = {p.id for p in catalogue.providers}  # only providers still in use
            self._carried = {s.provider.id: s for s in old.statuses() if s.provider.id in kept}
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()  # it lists the old providers
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.refresh()
        return old

    def refresh(self) -> None:
        """List every provider's models again; the picker fills in as each answers."""
        import asyncio  # after the first paint (see the imports)

        if self.catalogue is None or self._closed:
            return
        if self._task and not self._task.done():
            if self._ending:
                # Asked by one hearing of the listing's end (a model pulled since it
                # began): its task is not done yet, so the new listing begins right after
                # it, neither inside the end's own telling nor dropped as one under way.
                asyncio.get_running_loop().call_soon(self.refresh)
            return  # one under way already lists what there is
        self.publish(self.catalogue, listing=True)  # "Looking for models…" at once
        self._task = asyncio.ensure_future(self._list(self.catalogue))

    async def aclose(self) -> None:
        """Stop a listing still running; none begins afterwards (not even one asked for as
        it ends)."""
        import asyncio  # after the first paint (see the imports)

        self._closed = True
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _list(self, catalogue: Catalogue) -> None:
        try:
            async with contextlib.aclosing(catalogue.refresh_each()) as statuses:
                async for _status in statuses:
                    self.publish(catalogue, listing=True)
        except Exception:  # a bug in a wire must not leave "Looking for models…" forever
            log.exception("listing models failed")
        finally:
            self._ending = True
            try:
                self.publish(catalogue, listing=False)
            finally:
                self._ending = False

    def publish(self, catalogue: Catalogue, *, listing: bool) -> None:
        """Tell the picker what `catalogue` offers now (nothing for a replaced one)."""
        if catalogue is not self.catalogue:
            return  # a listing of providers replaced by new settings
        if not listing:
            self._carried = {}
        fresh = {s.provider.id: s for s in catalogue.statuses()}
        statuses = [
            fresh.get(p.id) or self._carried[p.id]
            for p in catalogue.providers
            if p.id in fresh or p.id in self._carried
        ]
        config = self.config
        self.listing = ModelListing(
            models=tuple(m for s in statuses if s.ready for m in s.models),
            statuses=tuple(statuses),
            providers=tuple(catalogue.providers),
            listing=listing,
            config_path=self.config_path,
            check_sight=config.check_sight,
            vision_model=config.vision_model,
        )
        self._changed(self.listing)
