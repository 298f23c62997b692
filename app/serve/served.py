"""One served request as one Sightline turn: stored as a served conversation, answered by the
real turn runner, told back as words and what Sightline did.

Both APIs come here with the same `Asked`; everything under Sightline's rules (who answers
`auto`, pictures described for a blind model by a local looker for a local one, the sight
check, heal and retry, a local request kept on this computer) is the runner's, as for the
window and `sightline ask`. What this adds is the conversation: the client's earlier
messages stored before its question, titled with the client's name, so the notices the
turn stores (and the crossings the ledger reads from them) are kept under that name; a
follow-up to a conversation already stored continues it (app/serve/continuing.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass, field

from app.serve.continuing import answering, continued
from app.serve.errors import ClientError, from_turn
from app.store import Store
from app.turn.events import ItemAdded, ItemFinished, TextAdded, TurnEnded, TurnEvent, UsageAdded
from app.turn.runner import TurnRunner
from app.turn.turn_input import TurnInput
from routing.catalogue import Catalogue
from routing.chat_settings import ChatSettings
from routing.errors import ModelNotFound, ProviderError
from routing.refs import split_ref
from routing.router import is_auto
from routing.transcript import Message, Notice, ToolCall
from routing.wires.base import ToolChoice, ToolSpec, Usage
from vision.labels import shown_name

log = logging.getLogger(__name__)

TITLE = "Served to {client}"
# A provider's words for an answer cut at its longest (OpenAI's, Ollama's, llama.cpp's and
# LM Studio's "length"; Anthropic's "max_tokens", which Gemini's wire says too): the
# client is told "length", as both APIs say it. Any other stop is "stop".
_CUT_AT_LENGTH = frozenset({"length", "max_tokens"})
_CLIENT_LENGTH = 60  # of a User-Agent kept in the title
UNKNOWN_CLIENT = "an app"


@dataclass(frozen=True)
class Asked:
    """What a client asked, in Sightline's terms: the model ref, the conversation before the
    question, the question (the person's words and pictures, or a `tool` message: the
    results of the client's tools, which the model answers from), the settings it sent,
    who asked, and the client's own tools, offered and handed back when called (the
    first request made to call one where `tool_choice` says so)."""

    model: str
    question: Message
    history: tuple[Message, ...] = ()
    settings: ChatSettings = field(default_factory=ChatSettings)
    client: str = ""
    tools: tuple[ToolSpec, ...] = ()
    tool_choice: ToolChoice | None = None


@dataclass(frozen=True)
class Words:
    """More of the answer."""

    text: str


@dataclass(frozen=True)
class Timing:
    """How long a served turn took, in seconds, measured here."""

    total: float = 0.0  # from the turn's start to its end
    to_first_word: float = 0.0  # to its first words: the prompt read, any pictures described
    answering: float = 0.0  # from its first words to its end (the server's own time if said)


@dataclass(frozen=True)
class Finished:
    """The turn is over: who answered, what it cost, what Sightline did, whether it failed."""

    model: str
    usage: Usage
    notices: tuple[Notice, ...]
    conversation_id: str
    error: ClientError | None = None
    # "length": the model stopped at its longest answer; "tool_calls": it called the
    # client's tools (`calls`), which the client runs and answers in its next request.
    reason: str = "stop"
    timing: Timing = field(default_factory=Timing)
    calls: tuple[ToolCall, ...] = ()


Said = Words | Finished


def client_name(user_agent: str | None) -> str:
    """The client as a title names it: its User-Agent, one line, within bounds."""
    name = shown_name((user_agent or "").strip())
    if not name:
        return UNKNOWN_CLIENT
    return name if len(name) <= _CLIENT_LENGTH else name[: _CLIENT_LENGTH - 1] + "…"


def notice_json(notices: tuple[Notice, ...]) -> list[dict[str, str]]:
    """Notices as `sightline_notices` carries them: kind and words."""
    return [{"kind": str(n.kind), "text": n.text} for n in notices]


class Served:
    """The turns of every client: one store, one catalogue, one runner, shared by requests
    that run concurrently on one event loop (the store is used from that thread only)."""

    def __init__(self, store: Store, catalogue: Catalogue, runner: TurnRunner) -> None:
        self.store = store
        self.catalogue = catalogue
        self.runner = runner
        self._running: set[str] = set()  # conversations with a turn going: never joined

    async def refs(self) -> list[str]:
        """Every ready model's ref, listed anew (a model pulled since shows up)."""
        await self.catalogue.refresh()
        return [m.ref for m in self.catalogue.models()]

    async def check_model(self, ref: str) -> None:
        """Refuse a model nobody has before anything is stored (404); `auto` always passes,
        and a provider that can't be reached is left to the turn, which falls back."""
        if is_auto(ref):
            return
        try:
            split_ref(ref)
            await self.catalogue.resolve(ref)
        except ValueError:
            raise ClientError(
                404,
                f"The model {shown_name(ref)!r} is not a Sightline model: name one as "
                "PROVIDER:MODEL (such as ollama:llama3.2:3b) or auto; GET /v1/models lists them.",
                code="model_not_found",
            ) from None
        except ModelNotFound as exc:
            raise ClientError(404, exc.message, code="model_not_found") from None
        except ProviderError:
            return

    async def run(self, asked: Asked) -> AsyncGenerator[Said, None]:
        """Store the client's conversation, run its question as a turn, yield the answer's
        words as they come and `Finished` last. Cancelling the task that iterates this
        (the client hung up) stops the turn as Stop in the window does."""
        tally = _Tally()
        conversation_id, question = self._conversation(asked)
        self._running.add(conversation_id)
        try:
            turn = TurnInput(
                conversation_id,
                question.text,
                question.pictures,
                asked.model,
                handed_back=asked.tools,
                tool_choice=asked.tool_choice,
                results=question.tool_results,  # a tool message: the client's results
            )
            async with aclosing(self.runner.run(turn)) as events:
                async for event in events:
                    if isinstance(event, TextAdded):
                        yield Words(event.text)
                    tally.saw(event)
        finally:
            self._running.discard(conversation_id)
        yield tally.finished(asked.model, conversation_id)

    def _conversation(self, asked: Asked) -> tuple[str, Message]:
        """The stored conversation the question joins: the one of the client's it follows
        (app/serve/continuing.py), else a new one holding the client's earlier messages;
        and the question, its results naming the calls as that conversation keeps them.
        The request's settings become the conversation's (they are this turn's)."""
        store = self.store
        title = TITLE.format(client=client_name(asked.client))
        prompt = asked.settings.system_prompt
        found = continued(store, title, asked.history, prompt, self._running)
        if found is not None:
            store.conversations.set_settings(found, asked.settings)
            kept = store.messages(found)[-1]
            return found, answering(kept, asked.history[-1], asked.question)
        conversation_id = store.conversations.create(title=title, model=asked.model)
        if not asked.settings.is_empty:
            store.conversations.set_settings(conversation_id, asked.settings)
        for message in asked.history:
            store.add_message(conversation_id, message)
        return conversation_id, asked.question


class _Tally:
    """What a served turn's events add up to, as `Finished` tells it, and its timing,
    measured here from when the turn is about to be stored."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.first_word: float | None = None
        self.notices: list[Notice] = []
        self.usage = Usage()
        self.reason = ""  # the provider's word for why its (last) answer stopped
        self.ended: TurnEnded | None = None

    def saw(self, event: TurnEvent) -> None:
        """Count one event of the turn."""
        if isinstance(event, TextAdded) and event.text and self.first_word is None:
            self.first_word = time.perf_counter()
        elif isinstance(event, ItemAdded) and isinstance(event.item.item, Notice):
            self.notices.append(event.item.item)
        elif isinstance(event, UsageAdded):
            # The describer's tokens count too (the turn cost them); its time is not the
            # answer's, so only the answer's own generating time is kept.
            generating = event.usage.generating_seconds if event.source == "answer" else 0.0
            self.usage = Usage(
                self.usage.input_tokens + event.usage.input_tokens,
                self.usage.output_tokens + event.usage.output_tokens,
                self.usage.generating_seconds + generating,
            )
        elif isinstance(event, ItemFinished):
            self.reason = event.reason
        elif isinstance(event, TurnEnded):
            self.ended = event

    def timing(self) -> Timing:
        """How long the turn took so far; answering is the server's own generating time
        where it said one, else the time from the first words to now."""
        now = time.perf_counter()
        total = now - self.started
        first = now if self.first_word is None else self.first_word
        answering = self.usage.generating_seconds or now - first
        return Timing(total, first - self.started, answering)

    def finished(self, asked_model: str, conversation_id: str) -> Finished:
        """The turn's end as the client is told it."""
        ended, error = self.ended, None
        if ended is None:
            error = ClientError(500, "The turn did not finish.", type="server_error")
        elif ended.error is not None:
            log.info("served turn failed: %s", ended.error.detail or ended.error.message)
            error = from_turn(ended.error)
        answered = ended.model_ref if ended and ended.model_ref else asked_model
        stopped = "length" if self.reason.lower() in _CUT_AT_LENGTH else "stop"
        calls = ended.handed_back if ended else ()
        if calls:
            stopped = "tool_calls"
        notices = tuple(self.notices)
        return Finished(
            answered, self.usage, notices, conversation_id, error, stopped, self.timing(), calls
        )


async def whole_answer(said: AsyncGenerator[Said, None]) -> tuple[str, Finished]:
    """The whole answer and how it ended, for a client that asked for it unstreamed."""
    words: list[str] = []
    async for item in said:
        if isinstance(item, Words):
            words.append(item.text)
        elif isinstance(item, Finished):
            return "".join(words), item
    raise AssertionError("a served turn always ends with Finished")
