"""The person's message as an agent's prompt, with Sightline's promises kept.

Words go as a `text` block. Pictures go as `image` blocks to an agent that takes
them (its `promptCapabilities.image`), else in words; who looks, and which crossing is
told (pictures to an agent whose model runs off this computer), is the sight policy's
(app/turn/sight_policy.py), with the agent's `local` deciding whether the chat is local.
A PDF is Sightline's reading of it: an embedded text `resource` for an agent that takes
embedded context, the words of the message otherwise; a scan's rendered pages are
pictures like any other.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from dataclasses import replace
from typing import Any
from urllib.parse import quote

from acp import embedded_text_resource, resource_block

from app.store import Store
from app.turn.acp.content import prompt_blocks
from app.turn.acp.session import AgentSession
from app.turn.engine import agent_model
from app.turn.events import ItemAdded, TurnEvent, UsageAdded
from app.turn.sight_policy import SightPolicy, agent_sight
from routing.documents import flatten_pages, pdf_reading, pdfs_for_model
from routing.transcript import Message, PagesPart, Part, PdfPart, TextPart


class AgentPrompt:
    """Makes each turn's prompt blocks, storing the notices they need."""

    def __init__(self, store: Store, sight: SightPolicy) -> None:
        self.store = store
        self.sight = sight  # who looks at pictures for an agent that doesn't take them

    async def blocks(
        self,
        session: AgentSession,
        conversation_id: str,
        ref: str,
        message: Message,
        blocks: list[Any],
    ) -> AsyncGenerator[TurnEvent, None]:
        """Fill `blocks` with the prompt; yield the events of what it stored on the way."""
        resources: list[Any] = []
        if session.embeds and message.pdfs:
            message, resources = _pdfs_as_resources(message)
        prepared = flatten_pages(pdfs_for_model((message,), reads_pdfs=False).messages)[0]
        agent = agent_sight(
            session.agent.id,
            local=session.agent.is_local,
            sees=session.sees,
            model=agent_model(ref),
            ref=ref,
        )
        if prepared.pictures and agent.sees:
            crossing = self.sight.to_agent(agent, prepared.pictures, why="you sent them")
            if crossing is not None:
                yield ItemAdded(self.store.add_notice(conversation_id, crossing))
        elif prepared.pictures:
            worded = await self.sight.words((prepared,), agent.model, local=agent.model.local)
            for notice in worded.notices:
                yield ItemAdded(self.store.add_notice(conversation_id, notice))
            if worded.usage is not None:
                yield UsageAdded(worded.usage, "describer")
            prepared = worded.messages[0]
        if prepared.pictures and session.sees:  # clamped off the window's thread (4K: ~90 ms)
            blocks.extend(await asyncio.to_thread(prompt_blocks, prepared, with_pictures=True))
        else:
            blocks.extend(prompt_blocks(prepared, with_pictures=session.sees))
        blocks.extend(resources)


def _pdfs_as_resources(message: Message) -> tuple[Message, list[Any]]:
    """Each PDF's reading as an embedded text resource; a scan's pages stay in the message
    (as pictures, or words for an agent that doesn't take them)."""
    parts: list[Part] = []
    resources: list[Any] = []
    for part in message.parts:
        if not isinstance(part, PdfPart):
            parts.append(part)
            continue
        reading = pdf_reading(part.pdf)
        words = "".join(p.text for p in reading if isinstance(p, TextPart)).strip()
        uri = f"sightline:attachment/{quote(part.pdf.name)}"
        resources.append(resource_block(embedded_text_resource(uri, words, mime_type="text/plain")))
        parts.extend(p for p in reading if isinstance(p, PagesPart))
    return replace(message, parts=tuple(parts)), resources
