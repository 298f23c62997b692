"""Pictures in words for an engine that doesn't take them: an agent, the door, Codex.

An engine that runs its own loop (an ACP agent, the Codex app server) answers with
a model Sightline doesn't list, so who looks is chosen as for any blind model: the
chat's configured vision model, else a seeing model that may be asked, and for an
engine whose model runs on this computer no model off it (not even for a listing).
The crossing to whoever looked is told, and so is a picture nobody may look at.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from app.turn.sight import looker_disclosure, nobody_sees_notice
from routing.catalogue import Catalogue
from routing.describing.describer import Describer
from routing.describing.framing import TURN_BUDGET, TurnBudget
from routing.describing.looker import WireLooker
from routing.describing.request import in_words
from routing.models import ModelInfo, SightFrom
from routing.router import RoutingPrefs, choose_looker
from routing.transcript import Message, Notice, ToolResult
from routing.wires.base import Usage


@dataclass(frozen=True)
class Worded:
    """The messages with their pictures in words, what to tell, and what describing cost."""

    messages: tuple[Message, ...]
    notices: tuple[Notice, ...] = ()
    usage: Usage | None = None


def blind_engine(engine_id: str, model: str, *, local: bool) -> ModelInfo:
    """The model behind an engine, as the looker rules see it: blind, local as configured."""
    return ModelInfo(
        engine_id, model or "default", sees=False, local=local, sight_from=SightFrom.LISTING
    )


@dataclass
class EngineWords:
    """Describes pictures for one engine's turns (or one door's run: `budget` bounds it)."""

    catalogue: Catalogue | None
    prefs: RoutingPrefs
    describer: Describer = field(default_factory=Describer)
    budget_cap: int = TURN_BUDGET
    budget: TurnBudget | None = None  # None: a fresh budget for each call (one turn each)

    async def words(self, messages: tuple[Message, ...], model: ModelInfo) -> Worded:
        """`messages` with their pictures described for `model`, who looked told."""
        looker, reason = await self._looker(model)
        result = await in_words(
            messages,
            turn_from=0,
            describer=self.describer,
            looker=looker,
            budget=self.budget or TurnBudget(cap=self.budget_cap),
        )
        notices: list[Notice] = []
        if looker is not None and result.asked:
            failed = len(result.asked) - len(result.fresh)
            notices.append(
                looker_disclosure(looker, model, result.asked, result.pages, reason, failed=failed)
            )
        elif looker is None:
            pictures = [
                *(p for m in messages for p in m.pictures),
                *(p for m in messages for r in m.tool_results for p in r.pictures),
            ]
            notices.append(nobody_sees_notice(pictures, model, local=model.local))
        usage = None
        if result.input_tokens or result.output_tokens:
            usage = Usage(result.input_tokens, result.output_tokens)
        return Worded(result.messages, tuple(notices), usage)

    async def _looker(self, model: ModelInfo) -> tuple[WireLooker | None, str]:
        catalogue = self.catalogue
        if catalogue is None:
            return None, ""
        wanted = [p.id for p in catalogue.providers if p.is_local or not model.local]
        listed = {s.provider.id for s in catalogue.statuses()}
        if missing := [i for i in wanted if i not in listed]:
            await catalogue.refresh(missing)
        seeing = [m for m in catalogue.models() if m.gets_pictures and m.provider_id in wanted]
        choice = choose_looker(
            seeing, model, configured=self.prefs.vision_model, local_chat=model.local
        )
        if choice is None:
            return None, ""
        return WireLooker(catalogue, choice.model), choice.reason


class ResultWords:
    """A door result's pictures in words for an agent that doesn't take them, each crossing
    told; one budget for the whole run, so an agent calling in a loop can't have pictures
    described without end."""

    def __init__(
        self, words: EngineWords, model: ModelInfo, tell: Callable[[Notice], None]
    ) -> None:
        self.source = words  # read at each call: the window may change who can look
        self.budget = TurnBudget(cap=words.budget_cap)
        self.model = model
        self.tell = tell

    async def __call__(self, result: ToolResult) -> ToolResult:
        """`result` with its pictures described (or noted as not looked at)."""
        words = replace(self.source, budget=self.budget)
        worded = await words.words((Message(role="tool", parts=(result,)),), self.model)
        for notice in worded.notices:
            self.tell(notice)
        parts = worded.messages[0].parts
        return next((p for p in parts if isinstance(p, ToolResult)), result)
