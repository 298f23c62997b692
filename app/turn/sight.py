"""Sight within a model-API turn: pictures as pictures or words for each model that
answers, the sight check first for a model nobody says sees, the seeing model that may
take over, healing after a refusal; locality re-decided when the answerer changes.
Attached PDFs go as PDFs to a model that reads them, and as Sightline's reading of them
to the rest. Who looks and what is told is the sight policy's (app/turn/sight_policy.py),
the crossing notices routing/crossing_notices.py's.

One `TurnSight` lives for one turn: it holds the turn's budget of described
pictures, so attachments, PDF pages and tool pictures all draw from one cap, and what
the turn has told, so each picture is told about once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from app.turn.sight_policy import SightPolicy, Told, Worded
from routing.catalogue import Catalogue
from routing.crossing_notices import heal_notice, takeover_disclosure
from routing.describing.describer import Describer
from routing.describing.framing import TurnBudget
from routing.documents import NATIVE_MAX_PAGES, PdfsForModel, flatten_pages, pdfs_for_model
from routing.endpoints import endpoint_name
from routing.models import ModelInfo, SightFrom, Verdict
from routing.router import Choice, RoutingPrefs
from routing.transcript import Message, Notice, NoticeKind, has_pictures, turn_start
from vision.pictures import Picture

if TYPE_CHECKING:
    from routing.sight_check import CheckResult

log = logging.getLogger(__name__)


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
        unreachable: set[str] | None = None,
        remember_check: Callable[[tuple[str, str], CheckResult], None] | None = None,
    ) -> None:
        self.catalogue = catalogue
        self.policy = SightPolicy(catalogue, prefs, describer)  # who looks, what is told
        self.chat_is_local = chat_is_local  # a local turn's pictures stay on this computer
        self.budget = budget or TurnBudget()
        # Providers found unreachable this turn: nobody Sightline picks may be of them.
        self.unreachable: set[str] = unreachable if unreachable is not None else set()
        self._told = Told()  # pictures nobody may look at, or the budget left out: told once
        self._pdfs_told: set[tuple[str, str]] = set()  # (model, PDF) pairs already told
        # Where a sight check's verdict is kept (the store), by (endpoint, model name).
        self._remember_check = remember_check or (lambda key, result: None)

    @property
    def prefs(self) -> RoutingPrefs:
        """The person's routing preferences (Auto's cloud, the vision model, the check)."""
        return self.policy.prefs

    def answered_by(self, model: ModelInfo, *, unreachable: str = "") -> None:
        """The answering model changed: the rules apply anew for the model that now answers.

        A turn answered on this computer is a local turn, whatever answered before it;
        `unreachable` names a provider just found unreachable, so nobody is picked from it.
        """
        if unreachable:
            self.unreachable.add(unreachable)
        self.chat_is_local = self.catalogue.provider(model.provider_id).is_local

    def may_pick(self, candidate: ModelInfo) -> bool:
        """Whether Sightline may hand this turn to the candidate (takeover): a local turn
        stays on this computer, the cloud only when Auto may use it, never an unreachable
        provider."""
        if candidate.provider_id in self.unreachable:
            return False
        if self.catalogue.provider(candidate.provider_id).is_local:
            return True
        return not self.chat_is_local and self.prefs.auto_may_use_cloud

    def sees(self, model: ModelInfo) -> bool:
        """Whether to send this model pictures (its one answer now, refusals included)."""
        return self.catalogue.answer(model).gets_pictures

    def reads_pdfs(self, model: ModelInfo) -> bool:
        """Whether to send this model attached PDFs as PDFs (it takes them and sees)."""
        return self.catalogue.answer(model).reads_pdfs

    def with_pdfs(self, model: ModelInfo, messages: tuple[Message, ...]) -> PdfsForModel:
        """The messages with each attached PDF as this model gets it."""
        answer = self.catalogue.answer(model)
        return pdfs_for_model(messages, reads_pdfs=answer.reads_pdfs, window=answer.context_length)

    async def for_model(self, model: ModelInfo, messages: tuple[Message, ...]) -> Worded:
        """The messages as this model may get them: as they are if it sees, else in words."""
        checked = await self._check_if_unknown(model, messages)
        pdfs = self.with_pdfs(model, messages)
        pdf_notices = checked + self._pdf_notices(model, pdfs)
        messages = pdfs.messages
        if self.sees(model) or not any(has_pictures(m) for m in messages):
            return Worded(flatten_pages(messages), pdf_notices)
        worded = await self.policy.words(
            messages,
            model,
            local=self.chat_is_local,
            turn_from=turn_start(messages),
            budget=self.budget,
            told=self._told,
            unreachable=self.unreachable,
        )
        return replace(worded, notices=pdf_notices + worded.notices)

    async def _check_if_unknown(
        self, model: ModelInfo, messages: tuple[Message, ...]
    ) -> tuple[Notice, ...]:
        """Before the first picture goes to a model nobody says sees: the sight check."""
        answer = self.catalogue.answer(model)
        if (
            not self.prefs.check_sight
            or answer.sight_from != SightFrom.UNKNOWN
            or not answer.takes_pictures
            or not any(has_pictures(m) for m in self.with_pdfs(model, messages).messages)
        ):
            return ()
        from routing.sight_check import check_sight  # a picture's first turn to such a model

        result = await check_sight(self.catalogue, model)
        self._remember_check(self.catalogue.learn_sight(model, result.verdict), result)
        return (sight_notice(model, result),)

    def _pdf_notices(self, model: ModelInfo, pdfs: PdfsForModel) -> tuple[Notice, ...]:
        """Say once per turn which PDFs a model that reads PDFs got as PDFs, and which not."""
        host = endpoint_name(self.catalogue.provider(model.provider_id).base_url)
        as_pdf = (
            f"goes to {model.ref} at {host} as a PDF: the model reads its text and looks at "
            "its pages itself."
        )
        as_read = (
            f"goes to {model.ref} as Sightline's reading of it, not as a PDF: a request "
            f"takes at most {NATIVE_MAX_PAGES} PDF pages and 32 MB, all PDFs together."
        )
        said = [(pdf, as_pdf) for pdf in pdfs.native] + [(pdf, as_read) for pdf in pdfs.too_large]
        notices = []
        for pdf, how in said:
            if (model.ref, pdf.sha256) not in self._pdfs_told:
                self._pdfs_told.add((model.ref, pdf.sha256))
                notices.append(Notice(NoticeKind.INFO, f"{pdf.name} ({_pages(pdf.pages)}) {how}"))
        for pdf, sent in pdfs.partial:
            if (model.ref, pdf.sha256 + sent) not in self._pdfs_told:
                self._pdfs_told.add((model.ref, pdf.sha256 + sent))
                words = (
                    f"{pdf.name} doesn't fit whole in what {model.ref} holds: {sent} went, the "
                    "first and those that best answer your question; the reading it gets names "
                    "the rest (read_file reads them)."
                )
                notices.append(Notice(NoticeKind.INFO, words))
        return tuple(notices)

    def takeover(
        self, model: ModelInfo, messages: tuple[Message, ...], *, needs_tools: bool
    ) -> Choice | None:
        """A seeing model to answer the rest of the turn, when this one can't see its pictures."""
        messages = self.with_pdfs(model, messages).messages  # a scan's pages count as pictures
        start = turn_start(messages)
        if self.sees(model) or not any(has_pictures(m) for m in messages[start:]):
            return None
        for candidate in self.catalogue.models():
            if candidate.ref == model.ref or candidate.sees is not True:
                continue
            if not self.may_pick(candidate):
                continue
            if needs_tools and candidate.tools is False:
                continue
            tools = " and can use this chat's tools" if needs_tools else ""
            reason = f"{model.ref} can't see this turn's pictures; {candidate.ref} sees them{tools}"
            return Choice(candidate, reason, True)
        return None

    def takeover_disclosure(self, choice: Choice, messages: tuple[Message, ...]) -> Notice:
        """The disclosure for the pictures the new model now gets."""
        provider = self.catalogue.provider(choice.model.provider_id)
        sent = _this_turns(self.with_pdfs(choice.model, messages).messages)
        return takeover_disclosure(
            choice, endpoint_name(provider.base_url), provider.is_local, sent
        )

    def heal(self, model: ModelInfo, messages: tuple[Message, ...]) -> Notice:
        """After a picture refusal: the model is treated as blind; say what happens now."""
        self.catalogue.mark_blind(model.ref)
        provider = self.catalogue.provider(model.provider_id)
        host = endpoint_name(provider.base_url)
        return heal_notice(model.ref, host, provider.is_local, _this_turns(messages))


def _this_turns(messages: tuple[Message, ...]) -> list[Picture]:
    """The pictures of this turn's messages, a tool's results' too."""
    return [
        picture
        for m in messages[turn_start(messages) :]
        for picture in (*m.pictures, *(p for r in m.tool_results for p in r.pictures))
    ]


def sight_notice(model: ModelInfo, result: CheckResult) -> Notice:
    """What a sight check found, and what the turn does about it."""
    asked = "Sightline checked whether it sees with a small probe picture"
    if result.verdict == Verdict.SEES:
        text = (
            f"{model.ref} sees pictures: it described the probe picture correctly, so it gets them."
        )
    elif result.verdict == Verdict.BLIND:
        text = (
            f"{model.ref} doesn't see pictures: its server took the probe picture, but the model "
            "didn't see it. Pictures go to it in words."
        )
    else:
        text = (
            f"Sightline can't tell whether {model.ref} sees pictures (no clear answer to the "
            "probe picture), so it is treated as a model that can't see: pictures go to it in "
            "words. Check sight again from the model picker."
        )
    said = result.answer.strip() or "(nothing)"
    return Notice(NoticeKind.SIGHT, text, details=f"{asked}; it answered: {said[:300]}")


def _pages(count: int | None) -> str:
    if count is None:
        return "page count unknown"
    return f"{count} page{'s' if count != 1 else ''}"
