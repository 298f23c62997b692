"""Every "who" decision: who answers a turn, and who looks at a picture.

Plain functions over lists of models (in the person's provider order); each
returns its choice with the reason, which becomes a notice whenever Sightline
chose for the person. The person's explicit choice always wins over them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from routing.errors import CannotConnect
from routing.models import ModelInfo

AUTO = "auto"
ON_THIS_COMPUTER = "on this computer"

# Names that mark a provider's small (cheap, quick) models.
_SMALL = re.compile(
    r"mini|small|haiku|flash|lite|nano|tiny|\b\d(\.\d)?b\b|:\d(\.\d)?b|-\d(\.\d)?b", re.I
)
_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*b\b", re.I)


@dataclass(frozen=True)
class RoutingPrefs:
    """What the person set that routing must honour."""

    auto_may_use_cloud: bool = False
    vision_model: str = ""  # PROVIDER:MODEL; naming it authorizes sending it pictures
    check_sight: bool = True  # check a model of unknown sight before its first picture


@dataclass(frozen=True)
class Choice:
    """The model that answers (or looks), why, and whether Sightline (not the person) chose it."""

    model: ModelInfo
    reason: str
    by_sightline: bool

    def where(self) -> str:
        """Where the model runs, in words."""
        return "on this computer" if self.model.local else "in the cloud"


def is_auto(requested: str) -> bool:
    """Whether the person left the choice to Sightline."""
    return not requested or requested.strip().lower() == AUTO


def _tools_ok(model: ModelInfo, needs_tools: bool) -> bool:
    return not needs_tools or model.tools is not False


def _best(
    models: Sequence[ModelInfo], *, has_pictures: bool, needs_tools: bool, where: str
) -> Choice | None:
    """The first model of the best kind there is, with the reason for that kind. The reason
    leaves where it runs to the notice that names it (routing/crossing_notices.py)."""
    tools = " and can use this chat's tools" if needs_tools else ""
    ranked: list[tuple[list[ModelInfo], str]] = []
    if has_pictures:
        ranked.append(
            (
                [m for m in models if m.sees and _tools_ok(m, needs_tools)],
                f"it sees pictures{tools}",
            )
        )
    first = "Auto tries local models first" if where == ON_THIS_COMPUTER else ""
    plain = "it can use this chat's tools" if needs_tools else first or "Auto may use the cloud"
    ranked.append(
        (
            [m for m in models if _tools_ok(m, needs_tools)],
            plain
            + ("; a model that sees will describe the pictures for it" if has_pictures else ""),
        )
    )
    ranked.append((list(models), "it is the first ready model there"))
    for candidates, reason in ranked:
        if candidates:
            return Choice(candidates[0], reason, True)
    return None


def choose_auto(
    models: Sequence[ModelInfo],
    *,
    has_pictures: bool,
    needs_tools: bool = False,
    allow_cloud: bool = False,
) -> Choice:
    """Auto: a ready local model first (one that sees when pictures come); cloud if allowed."""
    local = [m for m in models if m.local]
    choice = _best(
        local, has_pictures=has_pictures, needs_tools=needs_tools, where=ON_THIS_COMPUTER
    )
    if choice is not None:
        return choice
    if allow_cloud:
        cloud = [m for m in models if not m.local]
        choice = _best(
            cloud, has_pictures=has_pictures, needs_tools=needs_tools, where="in the cloud"
        )
        if choice is not None:
            return Choice(
                choice.model, f"no model on this computer is ready; {choice.reason}", True
            )
    hint = (
        "or allow Auto to use the cloud in Settings"
        if any(not m.local for m in models)
        else "or choose a model yourself instead of Auto"
    )
    raise CannotConnect(
        "No model on this computer is ready. Start Ollama (`ollama serve`) or LM Studio and "
        f"load a model, {hint}."
    )


def choose_offline(
    models: Sequence[ModelInfo],
    unreachable: ModelInfo,
    *,
    has_pictures: bool,
    needs_tools: bool = False,
) -> Choice:
    """The chosen model's provider can't be reached: a model on this computer answers instead."""
    local = [m for m in models if m.local and m.provider_id != unreachable.provider_id]
    choice = _best(
        local, has_pictures=has_pictures, needs_tools=needs_tools, where=ON_THIS_COMPUTER
    )
    if choice is None:
        raise CannotConnect(
            f"{unreachable.ref} can't be reached, and no model on this computer is ready to "
            "answer instead. Check the connection, or start a local model server.",
            provider_id=unreachable.provider_id,
        )
    return Choice(choice.model, f"{unreachable.ref} can't be reached; {choice.reason}", True)


def _smallness(model: ModelInfo) -> tuple[int, float]:
    """Sort key: named small models first, then by parameter count when the name says."""
    size = _SIZE.search(model.name)
    return (0 if _SMALL.search(model.name) else 1, float(size.group(1)) if size else 1e9)


def choose_looker(
    models: Sequence[ModelInfo],
    chat_model: ModelInfo,
    *,
    configured: str = "",
    local_chat: bool | None = None,
) -> Choice | None:
    """Who describes a picture for a blind model; None when no model may look.

    A configured vision model first (naming it is the authorization to send it
    pictures); then a seeing model of the chat's provider (a small one first);
    then one of another ready provider, in the person's order. The chat's own
    model never; in a local chat, only models on this computer.
    """
    local_only = chat_model.local if local_chat is None else local_chat
    allowed = [
        m for m in models if m.sees and m.ref != chat_model.ref and (m.local or not local_only)
    ]
    if configured:
        # Naming a model authorizes it, even where its listing doesn't say it sees.
        named = next(
            (
                m
                for m in models
                if m.ref == configured
                and m.sees is not False
                and m.ref != chat_model.ref
                and (m.local or not local_only)
            ),
            None,
        )
        if named is not None:
            return Choice(named, "it is the vision model chosen in Settings", True)
    own = sorted((m for m in allowed if m.provider_id == chat_model.provider_id), key=_smallness)
    if own:
        return Choice(
            own[0],
            f"it sees and belongs to {chat_model.provider_id}, as the chat's model does",
            True,
        )
    if allowed:
        first_provider = allowed[0].provider_id  # the person's order
        pick = min((m for m in allowed if m.provider_id == first_provider), key=_smallness)
        where = "on this computer" if local_only else "in your provider order"
        return Choice(pick, f"it is the first model that sees {where}", True)
    return None
