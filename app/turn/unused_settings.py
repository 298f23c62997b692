"""The chat's settings a model doesn't use: left out of its requests, learned, and told.

routing/parameters.py says which of a chat's settings a model takes and sends a request
once more without one it refuses; this is the turn's side of it. A setting the model is
known not to take is left out and a quiet notice says so, once for each chat, model and
settings left out (while Sightline runs: a tool step's next request isn't told again);
a setting it refuses is remembered in the store and the catalogue (never sent to it
again, across restarts), and a notice says it was asked again without it.
"""

from __future__ import annotations

from app.store import Store, StoredItem
from routing.catalogue import Catalogue
from routing.models import ModelInfo
from routing.parameters import BECAUSE, SETTINGS, WORDS, SettingRefused, fitted
from routing.transcript import Notice, NoticeKind
from routing.wires.base import ChatRequest

__all__ = ["UnusedSettings"]


def _shown(setting: str, value: float | int) -> str:
    """A setting and its value in words: "temperature (0.7)", "longest answer (400 tokens)"."""
    amount = f"{value:g}" if setting == "temperature" else f"{value:,} tokens"
    return f"{WORDS.get(setting, setting)} ({amount})"


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


class UnusedSettings:
    """One runner's settings left out: fitted to each model, learned, told once per chat."""

    def __init__(self, store: Store, catalogue: Catalogue) -> None:
        """Left out for the catalogue's models; lessons kept in the store."""
        self.store = store
        self.catalogue = catalogue
        self._told: dict[str, tuple[str, tuple[str, ...]]] = {}  # by chat: model, left out

    def fit(
        self, conversation_id: str, model: ModelInfo, request: ChatRequest
    ) -> tuple[ChatRequest, StoredItem | None]:
        """The request without what `model` doesn't take, and the notice saying so (None when
        nothing was left out, or this chat was told already)."""
        fit, left_out = fitted(request, model)
        told = (model.ref, left_out)
        before, self._told[conversation_id] = self._told.get(conversation_id), told
        if not left_out or before == told:
            return fit, None
        shown = [_shown(s, getattr(request, s)) for s in left_out]
        if len(left_out) == 1:
            why = model.why_not(left_out[0])
            because = f" ({BECAUSE[why]})" if why is not None else ""
            text = f"The chat's {shown[0]} was not used: {model.ref} doesn't take one{because}."
        else:
            text = f"The chat's {_listed(shown)} were not used: {model.ref} doesn't take them."
        return fit, self.store.add_notice(conversation_id, Notice(NoticeKind.INFO, text))

    def refused(self, conversation_id: str, model: ModelInfo, event: SettingRefused) -> StoredItem:
        """A setting `model` refused: never sent to it again, and the chat told (stored)."""
        self.store.learned.remember_refused(model.ref, event.param)
        self.catalogue.learn_refused(model.ref, event.param)
        # Told here, so the next request's notice (this one's left out, and this) isn't told.
        ref, left_out = self._told.get(conversation_id, (model.ref, ()))
        now = {event.param, *(left_out if ref == model.ref else ())}
        self._told[conversation_id] = (model.ref, tuple(s for s in SETTINGS if s in now))
        text = (
            f"The chat's {_shown(event.param, event.value)} was not used: {model.ref} refused "
            "it, so it was asked again without it (it won't be sent to this model again)."
        )
        return self.store.add_notice(conversation_id, Notice(NoticeKind.INFO, text))
