"""What the window asks about a model's sight: its one answer now, the models learned
blind, a refusal forgotten, the sight check on demand, and the person's own mark.

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
        now = catalogue.answer(model)
        if str(now.sight_from) in ("checked", "unknown"):  # nobody else says: its sight now
            self._told(f"Sight check: {model.ref} {VERDICT_WORDS[result.verdict]}.")
        else:  # the listing's word (or a mark, a refusal) stands; the verdict beside it
            from routing.capabilities import sight_note

            self._told(f"Sight check: {model.ref}: {sight_note(now)}.")
        self._published(catalogue)

    def mark(self, ref: str, blind: bool) -> None:
        """The person marks a model blind (pictures go to it in words, whatever its listing
        says), or takes the mark back; kept like what was learned."""
        if blind:
            self._store.learned.remember_marked(ref)
        else:
            self._store.learned.forget_marked(ref)
        catalogue = self._catalogue()
        if catalogue is not None:
            catalogue.mark(ref, blind)
            self._published(catalogue)
        if blind:
            self._told(f"{ref} is marked blind: pictures go to it in words.")
        else:
            self._told(f"{ref} is no longer marked blind.")

    def marked(self) -> frozenset[str]:
        """Models the person marked blind."""
        catalogue = self._catalogue()
        if catalogue is not None:
            return catalogue.marked
        return frozenset(self._store.learned.marked())
