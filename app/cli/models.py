"""`sightline models` and `sightline check-sight`: what is ready, and whether a model sees."""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Any

from app.cli.common import CommandError, check_model, cut, set_up
from vision.labels import shown_name

if TYPE_CHECKING:
    from app.config import Config


async def list_models(config: Config, *, as_json: bool) -> int:
    assembly = set_up(config)
    try:
        catalogue = assembly.catalogue()
    finally:
        assembly.store.close()
    import asyncio

    try:
        statuses, agent_rows = await asyncio.gather(catalogue.refresh(), _agent_rows(config))
    finally:
        await catalogue.aclose()
    rows: list[dict[str, Any]] = [
        {
            "provider": m.provider_id,
            "model": m.name,
            "local": m.local,
            "sees": m.sees,
            # "listing", "preset", "checked", "learned" (it refused a picture), "marked"
            # (the person said), "unknown"; `checked`: a sight check's verdict, shown
            # beside a listing's word that stands ("sees", "blind", "unsure"), or null.
            "sight_from": str(m.sight_from),
            "checked": None if m.checked is None else str(m.checked),
            "tools": m.tools,
            "size": m.size,  # bytes on disk, where its listing says (Ollama)
            # Its context window in tokens, and where that came from: "listing", "server",
            # "preset", "learned", "default" (routing/context_window.py).
            "context_window": m.context_length,
            "context_from": str(m.context_from),
            # The chat's settings never sent to it, each with why: "api", "preset", "learned".
            "takes_no": {setting: str(why) for setting, why in m.not_taken},
        }
        for m in catalogue.models()
    ]
    rows += agent_rows
    problems = [
        s for s in statuses.values() if s.error and not (s.provider.discovered and not s.models)
    ]
    for status in problems:
        print(f"sightline: {status.provider.id}: {status.error}", file=sys.stderr)
    if as_json:
        print(json.dumps(rows, indent=2))
    elif rows:
        for row in rows:
            name = row["provider"] if row.get("agent") else f"{row['provider']}:{row['model']}"
            kind = "\tagent" if row.get("agent") else ""
            print(f"{name}\t{_where(row)}\t{_abilities(row)}{kind}")
    if not rows:
        raise CommandError(nothing_ready(config))
    return 0


ANSWER_SHOWN = 2000  # characters of a sight check's answer printed (as many as are kept)


async def check_sight(config: Config, ref: str, *, as_json: bool, mark: bool | None = None) -> int:
    """`sightline check-sight PROVIDER:MODEL`: the verdict, printed and kept, beside what
    the listing says; with `mark` True or False, no check: the person's mark set or taken
    back."""
    from routing.capabilities import sight_note
    from routing.errors import ProviderError
    from routing.sight_check import CheckResult, check_sight

    assembly = set_up(config)
    store, catalogue = assembly.store, assembly.catalogue()
    result: CheckResult | None = None
    try:
        await check_model(ref, catalogue, auto_allowed=False)
        try:
            model = await catalogue.resolve(ref.strip())
        except ProviderError as exc:
            raise CommandError(exc.message) from None
        if mark is None:
            result = await check_sight(catalogue, model)
            endpoint, name = catalogue.learn_sight(model, result.verdict)
            store.learned.remember_check(endpoint, name, result.verdict, result.answer)
        elif mark:
            store.learned.remember_marked(model.ref)
            catalogue.mark(model.ref, True)
        else:
            store.learned.forget_marked(model.ref)
            catalogue.mark(model.ref, False)
        now = catalogue.answer(model)
    finally:
        await catalogue.aclose()
        store.close()
    if result is None:
        return _marked(now, as_json=as_json)
    answer, was_cut = cut(result.answer, ANSWER_SHOWN), len(result.answer) > ANSWER_SHOWN
    if as_json:
        line = {
            "model": model.ref,
            "sight": str(result.verdict),  # the check's verdict
            "sees": now.sees,  # the model's sight now: the listing's word where it stands
            "sight_from": str(now.sight_from),
            "answer": answer,
            "answer_cut": was_cut,  # the answer ends in "…" where it was cut
        }
        print(json.dumps(line))
        return 0
    told = f" (cut: it was {len(result.answer)} characters)" if was_cut else ""
    said = f"It answered: {shown_name(answer) or '(nothing)'}{told}"
    if str(now.sight_from) == "checked":
        words = {
            "sees": "sees pictures",
            "blind": "doesn't see pictures",
            "unsure": "gave no clear answer: treated as a model that can't see",
        }[result.verdict]
        print(f"{model.ref} {words}. {said}")
        return 0
    print(f"{model.ref}: {sight_note(now)}. {said}")
    if now.sees and result.verdict != "sees":  # a hint, with the notices, on stderr
        print(
            f"sightline: if {model.ref} doesn't see your pictures, mark it blind: "
            f"sightline check-sight {model.ref} --mark-blind",
            file=sys.stderr,
        )
    return 0


def _marked(model: Any, *, as_json: bool) -> int:
    """Say what the person's mark (set or taken back) made of the model's sight."""
    from routing.capabilities import sight_note

    if as_json:
        line = {"model": model.ref, "sees": model.sees, "sight_from": str(model.sight_from)}
        print(json.dumps(line))
    elif str(model.sight_from) == "marked":
        print(
            f"{model.ref} is marked blind: pictures go to it in words. "
            f"Undo with: sightline check-sight {model.ref} --unmark"
        )
    else:
        sight = {True: "sees", False: "doesn't see", None: "sight unknown"}[model.sees]
        note = sight_note(model)
        print(f"{model.ref} is not marked blind: {sight}" + (f" ({note})." if note else "."))
    return 0


AGENT_SECONDS = 15.0  # for an agent to start and say what it takes


async def _agent_rows(config: Config) -> list[dict[str, Any]]:
    """Each agent with its sight: started, asked at `initialize`, ended (concurrently)."""
    import asyncio
    import shutil
    from pathlib import Path

    from app.config import agent_providers
    from app.turn.acp.session import info_of
    from app.turn.agent_problems import AgentProblem

    agents = agent_providers(config)

    async def row(agent: Any) -> dict[str, Any]:
        sees: bool | None = None
        if agent.kind == "codex":
            # Codex takes pictures whatever model it runs; whether that model sees them is
            # the model's own affair, so its sight stays unknown (nothing is started here).
            if shutil.which(agent.command) is None:
                print(
                    f"sightline: {agent.id}: Codex's command {agent.command!r} is not "
                    "installed here (npm install -g @openai/codex).",
                    file=sys.stderr,
                )
        else:
            try:
                info = await info_of(agent, Path.cwd(), AGENT_SECONDS)
            except AgentProblem as exc:
                print(f"sightline: {agent.id}: {exc.message}", file=sys.stderr)
            else:
                capabilities = info.agent_capabilities
                prompt = capabilities.prompt_capabilities if capabilities else None
                sees = bool(prompt and prompt.image)
        return {
            "provider": agent.id,
            "model": "",
            "agent": True,
            "local": agent.is_local,
            "sees": sees,
            "sight_from": "listing" if sees is not None else "unknown",
            "tools": True,
            "context_window": None,  # an agent keeps its own model's window
            "context_from": None,
        }

    return list(await asyncio.gather(*(row(a) for a in agents)))


def _where(row: dict[str, Any]) -> str:
    return "local" if row["local"] else "cloud"


def _abilities(row: dict[str, Any]) -> str:
    from routing.parameters import WORDS

    sees = {True: "sees", False: "blind", None: "sight unknown"}[row["sees"]]
    if row["sight_from"] == "marked":
        sees = "blind (marked)"
    elif row.get("checked") and row["sight_from"] in ("listing", "preset"):
        # A check's verdict beside the word that stands: "sees (check: blind)".
        sees = f"{sees} (check: {row['checked']})"
    tools = {True: "tools", False: "no tools", None: "tools unknown"}[row["tools"]]
    # What its provider's rule or a refusal says it doesn't take (not what its API lacks).
    taken = row.get("takes_no", {}).items()
    refused = [f"no {WORDS.get(s, s)}" for s, why in taken if why != "api"]
    return ", ".join([sees, tools, *refused])


def nothing_ready(config: Config) -> str:
    from app.config import ollama_address

    where = config.source or "no config file"
    return (
        f"no provider is ready. Is Ollama running at {ollama_address(os.environ)}? Start it with "
        f"`ollama serve`, or set OLLAMA_HOST, or add a provider to the config ({where})."
    )
