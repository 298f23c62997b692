"""What the window asks about a model's sight: its one answer now, the models learned
blind, a refusal forgotten, and the sight check on demand.

Qt-free: it reads the catalogue in use (the model lister's) and tells the window through
the callbacks it is given: how a check goes, and the models to show again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from routing.refs import ref_halves

if TYPE_CHECKING:
    from app.store import Store
    from routing.catalogue import Catalogue
    from routing.models import ModelInfo

VERDICT_WORDS = {
    "sees": "sees pictures",
    "blind": "doesn't see pictures: they go to it in words",
    "unsure": "gave no clear answer, so it is treated as a model that can't see",
}


class SightChecks:
    """A model's sight, as the store learned it and the catalogue in use answers it."""

    def __init__(
        self,
        store: Store,
        catalogue: Callable[[], Catalogue | None],
        told: Callable[[str], None],
        published: Callable[[Catalogue], None],
        relist: Callable[[], None],
    ) -> None:
        """`told` says how a check goes; `published` shows a catalogue's models again, and
        `relist` lists every provider's models again."""
        self._store = store
        self._catalogue = catalogue
        self._told = told
        self._published = published
        self._relist = relist

    def model_answer(self, ref: str) -> ModelInfo | None:
        """The model's one answer now, lessons included (None: Auto, an agent, not listed)."""
        catalogue = self._catalogue()
        if catalogue is None or not ref_halves(ref)[1]:
            return None
        return catalogue.find(ref)

    def learned_blind(self) -> frozenset[str]:
        """Models that refused pictures (in this or an earlier session)."""
        catalogue = self._catalogue()
        if catalogue is not None:
            return catalogue.blind
        return frozenset(self._store.learned.blind())

    def check_again(self, ref: str) -> None:
        """Forget that a model refused pictures; its listing says again whether it sees."""
        self._store.learned.forget_blind(ref)
        catalogue = self._catalogue()
        if catalogue is not None:
            catalogue.forget_blind(ref)
        self._relist()

    async def check(self, ref: str) -> None:
        """Ask the model about a probe picture; its verdict becomes its sight (and is kept)."""
        from routing.sight_check import check_sight

        catalogue = self._catalogue()
        model = catalogue.find(ref) if catalogue is not None else None
        if catalogue is None or model is None:
            return
        self._told(f"Checking whether {model.ref} sees pictures…")
        result = await check_sight(catalogue, model)
        endpoint, name = catalogue.learn_sight(model, result.verdict)
        self._store.learned.remember_check(endpoint, name, result.verdict, result.answer)
        self._told(f"Sight check: {model.ref} {VERDICT_WORDS[result.verdict]}.")
        self._published(catalogue)
