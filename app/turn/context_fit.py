"""A turn's requests fitted to the answering model's window, and the person told what was not sent.

The window is the model's one answer (routing/context_window.py), or the chat's own
context length where the model takes one (Ollama's num_ctx, which Sightline then always
sends, so Ollama never cuts a prompt's beginning silently). What is sent must fit it
less the answer's room: the oldest turns between the first and the newest are left out
(routing/fitting.py), or, where the chat says so, the turn stops at the limit. A notice
says what was left out (and that the window was a guess, where nobody states it), once
for each chat, model and count. A refusal that states the window is learned and kept.
"""

from __future__ import annotations

import asyncio
import logging
import math
from dataclasses import dataclass, field, replace

from app.store import Store, StoredItem
from app.store.recent import Recent
from routing.catalogue import Catalogue
from routing.chat_settings import ChatSettings
from routing.context_window import ContextFrom, Overflow, about, answer_room
from routing.errors import ContextTooLong, ProviderError, StreamCut
from routing.fitting import fit
from routing.models import ModelInfo
from routing.token_estimate import (
    MESSAGE_OVERHEAD,
    SCALE_LEAST,
    Calibration,
    Estimator,
    text_tokens,
    tools_tokens,
)
from routing.transcript import Message, Notice, NoticeKind
from routing.wires.base import ChatRequest, TokenCounter, WindowCheck

log = logging.getLogger(__name__)

# How long the check of an empty answer may take: the server reads the whole prompt again.
CHECK_SECONDS = 60.0
# From this share of the window on, a server that counts tokens is asked to count.
NEAR_SHARE = 0.5
# A long chat is read back from its end until its words alone are this many times what
# the window could hold at most: what is older can't be in the request (`history`).
READ_MARGIN = 2


@dataclass
class Fitting:
    """One request as it goes: fitted, the notices to show, or why nothing can go."""

    request: ChatRequest
    window: int
    tokens: int = 0  # the estimate of what goes (its messages, the system prompt, the tools)
    estimate: int = 0  # that before the model's calibration
    notices: list[StoredItem] = field(default_factory=list)
    error: ContextTooLong | None = None


def _words(message: Message) -> int:
    """The least a message can count for in a request: its words (an estimate adds its
    pictures, calls and results, and the words they become)."""
    return MESSAGE_OVERHEAD + text_tokens(message.text)


def _messages(count: int) -> str:
    return "1 earlier message was" if count == 1 else f"{count:,} earlier messages were"


class ContextFit:
    """One runner's fitting of requests to windows: what is left out, learned, and told."""

    def __init__(self, store: Store, catalogue: Catalogue) -> None:
        self.store = store
        self.catalogue = catalogue
        self.calibration = Calibration()
        self._told_left_out: dict[str, tuple[str, int]] = {}  # by chat: model, count
        self._estimators: dict[str, Estimator] = {}  # by provider kind, kept for their counts

    @staticmethod
    def window(model: ModelInfo, settings: ChatSettings) -> tuple[int, ContextFrom]:
        """The window a turn's request must fit, and where it came from."""
        if settings.context_length is not None and model.takes("context_length"):
            return settings.context_length, ContextFrom.SETTING
        assert model.context_length is not None  # the catalogue's answer always has one
        return model.context_length, model.context_from

    def history(self, conversation_id: str, model: ModelInfo, settings: ChatSettings) -> Recent:
        """What a request to `model` reads of the chat: all of it, or, when it is far past
        the window, its first turn and the newest turns the window could ever hold.

        Read back until the newest turns' words alone are READ_MARGIN times the most the
        window could hold (the least calibration, no system prompt, no tools), so the
        turns fitting keeps are all among them: each message's estimate in the request is
        at least its words'. What was left unread is counted with what fitting leaves out.
        """
        window, _ = self.window(model, settings)
        most = (window - answer_room(window, settings.max_tokens)) / SCALE_LEAST
        return self.store.recent_messages(conversation_id, _words, math.ceil(READ_MARGIN * most))

    def fitted(
        self,
        conversation_id: str,
        model: ModelInfo,
        request: ChatRequest,
        settings: ChatSettings,
        unread: int = 0,
    ) -> Fitting:
        """The request within the model's window (and Ollama told the window to load);
        `unread`: the chat's messages `history` left unread, left out as well."""
        window, source = self.window(model, settings)
        if model.takes("context_length"):
            request = replace(request, context_length=window)
        kind = self.catalogue.provider(model.provider_id).kind
        estimator = self._estimators.setdefault(kind, Estimator(kind))
        fixed = text_tokens(request.system) + tools_tokens(request.tools)
        budget = window - answer_room(window, request.max_tokens) - fixed

        # Counted as estimated, against the budget unscaled by what this model's server
        # reported: one multiplication a turn, not one a message.
        scale = self.calibration.scale(model.ref)
        fitting = Fitting(request, window)
        found = fit(request.messages, int(budget / scale), estimator.message, unread)
        if found is None:
            fitting.error = self._too_big(model, window)
            return fitting
        if found.left_out and (settings.overflow or Overflow.LEAVE_OUT) is Overflow.STOP:
            fitting.error = self._stopped(model, window)
            return fitting
        fitting.request = replace(request, messages=found.messages)
        fitting.estimate = found.tokens + fixed
        fitting.tokens = math.ceil(found.tokens * scale) + fixed
        told = (model.ref, found.left_out)
        before, self._told_left_out[conversation_id] = (
            self._told_left_out.get(conversation_id),
            told,
        )
        if found.left_out and before != told:
            holds = (
                "nobody says how much it holds, so each request to it is kept within "
                f"{about(window)}"
                if source is ContextFrom.DEFAULT
                else f"it holds {about(window)}"
            )
            words = (
                f"{_messages(found.left_out)} left out of what {model.ref} saw: {holds}. "
                "The first message and the newest turns were kept."
            )
            fitting.notices.append(self._notice(conversation_id, words))
        return fitting

    async def count_if_near(
        self, model: ModelInfo, request: ChatRequest, settings: ChatSettings
    ) -> None:
        """Near the window, the server's own count, where it has one, calibrates the
        estimate before the request is fitted: counted, not guessed, where it matters."""
        wire = self.catalogue.wire(model.provider_id)
        if not isinstance(wire, TokenCounter):
            return
        window, _ = self.window(model, settings)
        words = "\n".join([request.system, *(m.text for m in request.messages)])
        estimate = text_tokens(words)
        scaled = estimate * self.calibration.scale(model.ref)
        if scaled < NEAR_SHARE * window or estimate > 40 * window:
            return  # far from the window, or so far past it that counting is no use
        try:
            async with asyncio.timeout(CHECK_SECONDS):
                counted = await wire.count_tokens(words, model.name)
        except (ProviderError, TimeoutError):
            return
        if counted:
            self.calibration.reported(model.ref, estimate, counted)

    def reported(self, model: ModelInfo, fitting: Fitting, input_tokens: int) -> None:
        """The server counted `input_tokens` for the request `fitting` sent."""
        self.calibration.reported(model.ref, fitting.estimate, input_tokens)

    async def why_empty(
        self, model: ModelInfo, request: ChatRequest, error: ProviderError
    ) -> ProviderError:
        """Why an answer ended before its first word: past the window, where asking once
        more without streaming says so (llama-cpp-python's stream past it is an empty
        200), else the error as it was."""
        wire = self.catalogue.wire(model.provider_id)
        if not isinstance(error, StreamCut) or not isinstance(wire, WindowCheck):
            return error
        refusal: ProviderError | None = None
        # Twice at most: llama-cpp-python closes the connection its empty stream came on,
        # and the first try may be sent on it before the client knows.
        for attempt in range(2):
            try:
                async with asyncio.timeout(CHECK_SECONDS):
                    refusal = await wire.window_refusal(request)
                break
            except StreamCut:
                if attempt:
                    return error
            except (ProviderError, TimeoutError) as failed:
                log.info("%s: the window check failed too (%s)", model.ref, type(failed).__name__)
                return error
        return refusal if isinstance(refusal, ContextTooLong) else error

    def learn(self, model: ModelInfo, error: ContextTooLong) -> bool:
        """Keep the window a refusal stated; True when it is news (a smaller one than used)."""
        if error.window is None or error.window == model.context_length:
            return False
        self.store.learned.remember_window(model.ref, error.window)
        self.catalogue.learn_window(model.ref, error.window)
        return True

    def _notice(self, conversation_id: str, words: str) -> StoredItem:
        return self.store.add_notice(conversation_id, Notice(NoticeKind.INFO, words))

    @staticmethod
    def _too_big(model: ModelInfo, window: int) -> ContextTooLong:
        return ContextTooLong(
            f"Your message and its attachments take more than {model.ref} holds "
            f"({about(window)}, with room for its answer), so nothing was sent. Shorten the "
            "message, remove an attachment, or pick a model with a larger window.",
            window=window,
            provider_id=model.provider_id,
            detail="the current turn alone exceeds the window",
        )

    @staticmethod
    def _stopped(model: ModelInfo, window: int) -> ContextTooLong:
        return ContextTooLong(
            f"This chat no longer fits {model.ref}, which holds {about(window)}, and it is set "
            "to stop at the limit, so nothing was sent. Start a new chat, or let it leave out "
            "earlier messages (the chat's settings).",
            window=window,
            provider_id=model.provider_id,
            detail="the chat's overflow is stop",
        )
