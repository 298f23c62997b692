"""Sight within a turn: words for a blind model, the seeing model that may take over,
healing after a refusal, and the notices that say what crossed where (disclosure)
and which pictures the turn's cap left undescribed (budget).

One `TurnSight` lives for one turn: it holds the turn's budget of described
pictures, so attachments, PDF pages and tool pictures all draw from one cap.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from routing.catalogue import Catalogue
from routing.describing import has_pictures, in_words
from routing.looking import WireLooker, host_of
from routing.models import ModelInfo
from routing.presets import counts_as_seeing, preset_for
from routing.router import Choice, RoutingPrefs, choose_looker
from routing.transcript import Message, Notice, NoticeKind, turn_start
from routing.wires.base import Usage
from vision.describer import Describer
from vision.pictures import Picture
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
        self._over_budget_told: set[str] = set()  # pictures the person was told about

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
        if looker is not None and looker_choice is not None and result.asked:
            # Every picture handed to the looker is disclosed, described or not: it left.
            notices.append(
                Notice(
                    NoticeKind.DISCLOSURE,
                    _disclosure(
                        looker, model, result.asked, failed=len(result.asked) - len(result.fresh)
                    ),
                    details=f"Why {looker.label}: {looker_choice.reason}.",
                )
            )
        untold = [p for p in result.past_budget if p.sha256 not in self._over_budget_told]
        if untold:
            self._over_budget_told.update(p.sha256 for p in untold)
            notices.append(_budget_notice(untold, self.budget.cap, model))
        usage = (
            Usage(result.input_tokens, result.output_tokens)
            if result.input_tokens or result.output_tokens
            else None
        )
        return Shaped(result.messages, tuple(notices), usage)

    async def _looker(self, model: ModelInfo) -> Choice | None:
        listed = {s.provider.id for s in self.catalogue.statuses()}
        missing = [
            p.id
            for p in self.catalogue.providers
            if p.id not in listed and (p.is_local or not self.chat_is_local)
        ]
        # Who looks may be of a provider nobody listed yet this session; a local chat
        # never asks a provider off this computer, not even for its list of models.
        if missing:
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
        sent = [
            picture
            for m in messages[start:]
            for picture in (*m.pictures, *(p for r in m.tool_results for p in r.pictures))
        ]
        count = len(sent)
        labels = ", ".join(p.label or "a picture" for p in sent)
        host = host_of(self.catalogue.provider(choice.model.provider_id).base_url)
        return Notice(
            NoticeKind.DISCLOSURE,
            f"This turn's {count} picture{'s now go' if count != 1 else ' now goes'} "
            f"({labels}) to {choice.model.ref} at {host} ({choice.where()}).",
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


def _disclosure(looker: WireLooker, model: ModelInfo, sent: list[Picture], *, failed: int) -> str:
    """What crossed to the looker, in words: who, where, how many pictures, which ones."""
    count = len(sent)
    pictures = f"{count} picture{'s' if count != 1 else ''}"
    labels = ", ".join(p.label or "a picture" for p in sent)
    if not failed:
        them = "them" if count != 1 else "it"
        return (
            f"{looker.label} at {looker.host} looked at {pictures} ({labels}) and described "
            f"{them} for {model.ref}, which can't see."
        )
    if count == 1:
        outcome = "it could not be described"
    elif failed == count:
        outcome = "none of them could be described"
    else:
        outcome = f"{failed} of them could not be described"
    return (
        f"{looker.label} at {looker.host} was sent {pictures} ({labels}) to describe for "
        f"{model.ref}, which can't see; {outcome}."
    )


def _budget_notice(pictures: list[Picture], cap: int, model: ModelInfo) -> Notice:
    """Tell the person which pictures stayed undescribed because the turn's cap was reached."""
    count = len(pictures)
    labels = ", ".join(p.label or "a picture" for p in pictures)
    return Notice(
        NoticeKind.BUDGET,
        f"{count} picture{'s were' if count != 1 else ' was'} not described for {model.ref} "
        f"({labels}): a turn describes at most {cap} pictures. Ask about "
        f"{'them' if count != 1 else 'it'} in a new message, or pick a model that sees.",
    )
