"""Sight within a turn: words for a blind model, the seeing model that may take over,
healing after a refusal, and the disclosure notices that say what crossed where.

One `TurnSight` lives for one turn: it holds the turn's budget of described
pictures, so attachments, PDF pages and tool pictures all draw from one cap.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from routing.catalogue import Catalogue
from routing.describing import has_pictures, in_words
from routing.looking import WireLooker
from routing.models import ModelInfo
from routing.presets import counts_as_seeing, preset_for
from routing.router import Choice, RoutingPrefs, choose_looker
from routing.transcript import Message, Notice, NoticeKind, turn_start
from routing.wires.base import Usage
from vision.describer import Describer
from vision.sight import TurnBudget

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Shaped:
    """A request's messages for one model, with the notices and cost of getting them."""

    messages: tuple[Message, ...]
    notices: tuple[Notice, ...] = ()
    usage: Usage | None = None


class TurnSight:
    """What one turn needs to give every model the pictures, as pictures or as words."""

    def __init__(
        self,
        catalogue: Catalogue,
        describer: Describer,
        prefs: RoutingPrefs,
        *,
        chat_is_local: bool,
        budget: TurnBudget | None = None,
    ) -> None:
        self.catalogue = catalogue
        self.describer = describer
        self.prefs = prefs
        self.chat_is_local = chat_is_local  # a local chat's pictures stay on this computer
        self.budget = budget or TurnBudget()

    def sees(self, model: ModelInfo) -> bool:
        """Whether to send this model pictures (what is known now, refusals included)."""
        current = self.catalogue.find(model.ref) or model
        if model.ref in self.catalogue.blind:
            return False
        kind = self.catalogue.provider(model.provider_id).kind
        return counts_as_seeing(preset_for(kind), current.sees)

    async def for_model(self, model: ModelInfo, messages: tuple[Message, ...]) -> Shaped:
        """The messages as this model may get them: as they are if it sees, else in words."""
        if self.sees(model) or not any(has_pictures(m) for m in messages):
            return Shaped(messages)
        looker_choice = await self._looker(model)
        looker = WireLooker(self.catalogue, looker_choice.model) if looker_choice else None
        result = await in_words(
            messages,
            turn_from=turn_start(messages),
            describer=self.describer,
            looker=looker,
            budget=self.budget,
        )
        notices: list[Notice] = []
        if looker is not None and looker_choice is not None and result.fresh:
            labels = [p.label or "a picture" for p, _ in result.fresh]
            count = len(labels)
            notices.append(
                Notice(
                    NoticeKind.DISCLOSURE,
                    f"{looker.label} at {looker.host} looked at {count} "
                    f"picture{'s' if count > 1 else ''} ({', '.join(labels)}) and described "
                    f"{'them' if count > 1 else 'it'} for {model.ref}, which can't see.",
                    details=f"Why {looker.label}: {looker_choice.reason}.",
                )
            )
        usage = (
            Usage(result.input_tokens, result.output_tokens)
            if result.input_tokens or result.output_tokens
            else None
        )
        return Shaped(result.messages, tuple(notices), usage)

    async def _looker(self, model: ModelInfo) -> Choice | None:
        listed = {s.provider.id for s in self.catalogue.statuses()}
        missing = [p.id for p in self.catalogue.providers if p.id not in listed]
        if missing:  # who looks may be of a provider nobody listed yet this session
            await self.catalogue.refresh(missing)
        seeing = [m for m in self.catalogue.models() if self.sees(m)]
        return choose_looker(
            seeing,
            model,
            configured=self.prefs.vision_model,
            local_chat=self.chat_is_local,
        )

    def takeover(
        self, model: ModelInfo, messages: tuple[Message, ...], *, needs_tools: bool
    ) -> Choice | None:
        """A seeing model to answer the rest of the turn, when this one can't see its pictures."""
        start = turn_start(messages)
        if self.sees(model) or not any(has_pictures(m) for m in messages[start:]):
            return None
        for candidate in self.catalogue.models():
            if candidate.ref == model.ref or not self.sees(candidate) or not candidate.sees:
                continue
            if self.chat_is_local and not candidate.local:
                continue
            if needs_tools and candidate.tools is False:
                continue
            tools = " and can use this chat's tools" if needs_tools else ""
            reason = f"{model.ref} can't see this turn's pictures; {candidate.ref} sees them{tools}"
            return Choice(candidate, reason, True)
        return None

    def takeover_disclosure(self, choice: Choice, messages: tuple[Message, ...]) -> Notice:
        """The disclosure for the pictures the new model now gets."""
        start = turn_start(messages)
        count = sum(
            len(m.pictures) + sum(len(r.pictures) for r in m.tool_results) for m in messages[start:]
        )
        host = self.catalogue.provider(choice.model.provider_id).base_url
        return Notice(
            NoticeKind.DISCLOSURE,
            f"This turn's {count} picture{'s' if count != 1 else ''} now go to "
            f"{choice.model.ref} at {host} ({choice.where()}).",
            details=choice.reason,
        )

    def heal(self, model: ModelInfo) -> Notice:
        """After a picture refusal: the model is treated as blind; say what happens now."""
        self.catalogue.mark_blind(model.ref)
        return Notice(
            NoticeKind.HEAL,
            f"{model.ref} refused the pictures, so it is now treated as a model that can't "
            "see: the pictures are put into words for it and the question is asked again.",
            details='Clear this in the model picker ("check again") if the model changes.',
        )
