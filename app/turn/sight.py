"""Sight within a turn: words for a blind model, the seeing model that may take over,
healing after a refusal, and the notices that say what crossed where (disclosure)
and which pictures the turn's cap left undescribed (budget). Attached PDFs go as
PDFs to a model that reads them, and as Sightline's reading of them to the rest.

One `TurnSight` lives for one turn: it holds the turn's budget of described
pictures, so attachments, PDF pages and tool pictures all draw from one cap.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from routing.catalogue import Catalogue
from routing.describing.describer import Describer
from routing.describing.framing import TurnBudget
from routing.describing.looker import WireLooker
from routing.describing.request import has_pictures, in_words
from routing.documents import NATIVE_MAX_PAGES, PdfsForModel, flatten_pages, pdfs_for_model
from routing.endpoints import endpoint_name
from routing.models import ModelInfo, SightFrom, Verdict
from routing.router import Choice, RoutingPrefs, choose_looker
from routing.sight_check import CheckResult, check_sight
from routing.transcript import Crossed, Message, Notice, NoticeKind, PagesPart, turn_start
from routing.wires.base import Usage
from vision.pdf import page_span
from vision.pictures import Picture

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Shaped:
    """A request's messages for one model, with the notices and cost of getting them."""

    messages: tuple[Message, ...]
    notices: tuple[Notice, ...] = ()
    usage: Usage | None = None
    looked_away: frozenset[str] = frozenset()  # pictures a looker off this computer was sent


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
        self.describer = describer
        self.prefs = prefs
        self.chat_is_local = chat_is_local  # a local turn's pictures stay on this computer
        self.budget = budget or TurnBudget()
        # Providers found unreachable this turn: nobody Sightline picks may be of them.
        self.unreachable: set[str] = unreachable if unreachable is not None else set()
        self._over_budget_told: set[str] = set()  # pictures the person was told about
        self._nobody_told: set[str] = set()  # pictures no model may look at, told once
        self._pdfs_told: set[tuple[str, str]] = set()  # (model, PDF) pairs already told
        # Where a sight check's verdict is kept (the store), by (endpoint, model name).
        self._remember_check = remember_check or (lambda key, result: None)

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
        return pdfs_for_model(messages, reads_pdfs=self.reads_pdfs(model))

    async def for_model(self, model: ModelInfo, messages: tuple[Message, ...]) -> Shaped:
        """The messages as this model may get them: as they are if it sees, else in words."""
        checked = await self._check_if_unknown(model, messages)
        pdfs = self.with_pdfs(model, messages)
        pdf_notices = checked + self._pdf_notices(model, pdfs)
        messages = pdfs.messages
        if self.sees(model) or not any(has_pictures(m) for m in messages):
            return Shaped(flatten_pages(messages), pdf_notices)
        looker_choice = await self._looker(model)
        looker = WireLooker(self.catalogue, looker_choice.model) if looker_choice else None
        result = await in_words(
            messages,
            turn_from=turn_start(messages),
            describer=self.describer,
            looker=looker,
            budget=self.budget,
        )
        notices = list(pdf_notices)
        if looker is not None and looker_choice is not None and result.asked:
            # Every picture handed to the looker is disclosed, described or not: it left.
            failed = len(result.asked) - len(result.fresh)
            notices.append(
                looker_disclosure(
                    looker, model, result.asked, result.pages, looker_choice.reason, failed=failed
                )
            )
        if looker is None:
            start = turn_start(messages)
            unseen = [
                p
                for m in messages[start:]
                for p in (*m.pictures, *(p for r in m.tool_results for p in r.pictures))
                if p.sha256 not in self._nobody_told
            ]
            if unseen:
                self._nobody_told.update(p.sha256 for p in unseen)
                notices.append(nobody_sees_notice(unseen, model, local=self.chat_is_local))
        untold = [p for p in result.past_budget if p.sha256 not in self._over_budget_told]
        if untold:
            self._over_budget_told.update(p.sha256 for p in untold)
            notices.append(_budget_notice(untold, self.budget.cap, model))
        usage = (
            Usage(result.input_tokens, result.output_tokens)
            if result.input_tokens or result.output_tokens
            else None
        )
        away = frozenset(p.sha256 for p in result.asked if looker is not None and not looker.local)
        return Shaped(result.messages, tuple(notices), usage, away)

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
        return tuple(notices)

    async def _looker(self, model: ModelInfo) -> Choice | None:
        listed = {s.provider.id for s in self.catalogue.statuses()}
        missing = [
            p.id
            for p in self.catalogue.providers
            if p.id not in listed
            and p.id not in self.unreachable
            and (p.is_local or not self.chat_is_local)
        ]
        # Who looks may be of a provider nobody listed yet this session; a local chat
        # never asks a provider off this computer, not even for its list of models.
        if missing:
            await self.catalogue.refresh(missing)
        seeing = [
            m
            for m in self.catalogue.models()
            if self.sees(m) and m.provider_id not in self.unreachable
        ]
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
        messages = self.with_pdfs(choice.model, messages).messages
        start = turn_start(messages)
        sent = [
            picture
            for m in messages[start:]
            for picture in (*m.pictures, *(p for r in m.tool_results for p in r.pictures))
        ]
        count = len(sent)
        labels = ", ".join(p.label or "a picture" for p in sent)
        provider = self.catalogue.provider(choice.model.provider_id)
        host = endpoint_name(provider.base_url)
        return Notice(
            NoticeKind.DISCLOSURE,
            f"This turn's {count} picture{'s now go' if count != 1 else ' now goes'} "
            f"({labels}) to {choice.model.ref} at {host} ({choice.where()}).",
            details=choice.reason,
            crossed=Crossed(
                choice.model.ref,
                host,
                f"{_count(count, 'picture')} of this turn ({labels})",
                choice.reason or "It took over the turn to see its pictures",
                provider.is_local,
            ),
        )

    def heal(self, model: ModelInfo, messages: tuple[Message, ...]) -> Notice:
        """After a picture refusal: the model is treated as blind; say what happens now."""
        self.catalogue.mark_blind(model.ref)
        sent = [
            picture
            for m in messages[turn_start(messages) :]
            for picture in (*m.pictures, *(p for r in m.tool_results for p in r.pictures))
        ]
        provider = self.catalogue.provider(model.provider_id)
        labels = ", ".join(p.label or "a picture" for p in sent)
        return Notice(
            NoticeKind.HEAL,
            f"{model.ref} refused the pictures, so it is now treated as a model that can't "
            "see: the pictures are put into words for it and the question is asked again.",
            details='Clear this in the model picker ("check again") if the model changes.',
            crossed=Crossed(
                model.ref,
                endpoint_name(provider.base_url),
                f"{_count(len(sent), 'picture')} of this turn ({labels})"
                if sent
                else "This turn's pictures",
                "It answers this chat and was sent the pictures; it refused them, so they "
                "went as words",
                provider.is_local,
            ),
        )


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


def _count(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' if count != 1 else ''}"


def looker_disclosure(
    looker: WireLooker,
    model: ModelInfo,
    sent: list[Picture],
    pages: list[PagesPart],
    reason: str,
    *,
    failed: int,
) -> Notice:
    """What crossed to the looker: who, where, how many pictures, which ones, and why."""
    count = len(sent)
    pictures = f"{_count(count, 'picture')} ({_labels(sent, pages)})"
    if not failed:
        them = "them" if count != 1 else "it"
        text = (
            f"{looker.label} at {looker.host} looked at {pictures} and described "
            f"{them} for {model.ref}, which can't see."
        )
        outcome = ""
    else:
        if count == 1:
            outcome = "it could not be described"
        elif failed == count:
            outcome = "none of them could be described"
        else:
            outcome = f"{failed} of them could not be described"
        text = (
            f"{looker.label} at {looker.host} was sent {pictures} to describe for "
            f"{model.ref}, which can't see; {outcome}."
        )
    remains = _pages_note(pages, failed=failed)
    what = "; ".join(w for w in (pictures, outcome, remains.strip()) if w)
    return Notice(
        NoticeKind.DISCLOSURE,
        text + remains,
        details=f"Why {looker.label}: {reason}.",
        crossed=Crossed(
            looker.label,
            looker.host,
            what,
            f"To describe them in words for {model.ref}, which can't see; {reason}",
            looker.local,
        ),
    )


def _labels(pictures: list[Picture], pages: list[PagesPart]) -> str:
    """The pictures by label, a PDF's rendered pages as a run: "scan.pdf pages 1-4"."""
    page_of = {p.sha256: (part.document, n) for part in pages for n, p in part.numbered()}
    words: list[str] = []
    run: tuple[str, int, int] | None = None  # (document, first page, last page)
    for picture in pictures:
        where = page_of.get(picture.sha256)
        if where and run and run[0] == where[0] and run[2] == where[1] - 1:
            run = (run[0], run[1], where[1])
            continue
        if run:
            words.append(f"{run[0]} {page_span(run[1], run[2])}")
            run = None
        if where:
            run = (where[0], where[1], where[1])
        else:
            words.append(picture.label or "a picture")
    if run:
        words.append(f"{run[0]} {page_span(run[1], run[2])}")
    return ", ".join(words)


def _pages(count: int | None) -> str:
    if count is None:
        return "page count unknown"
    return f"{count} page{'s' if count != 1 else ''}"


def _pages_note(pages: list[PagesPart], *, failed: int) -> str:
    """For rendered PDF pages: what remains unread, and what the model got if reading failed."""
    notes = []
    for part in pages:
        if part.total_pages is None:
            notes.append(f" More pages of {part.document} may exist after page {part.last}.")
        elif part.last < part.total_pages:
            notes.append(
                f" Pages {part.last + 1}-{part.total_pages} of {part.document} were not read."
            )
    if pages and failed:
        notes.append(" For pages nobody could read, the model was told no text could be extracted.")
    return "".join(notes)


def nobody_sees_notice(pictures: list[Picture], model: ModelInfo, *, local: bool) -> Notice:
    """No model that sees may look at this turn's pictures: they were only noted for it."""
    count = len(pictures)
    labels = ", ".join(p.label or "a picture" for p in pictures)
    where = "on this computer " if local else ""
    return Notice(
        NoticeKind.NOBODY_SEES,
        f"No model {where}can see {labels}, so {model.ref} was only told "
        f"{'they are' if count != 1 else 'it is'} there. A model that sees, downloaded to this "
        "computer, can describe pictures without them leaving it.",
        details="Get a model that sees (a few GB, once), then press Retry.",
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
