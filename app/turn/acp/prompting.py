"""The person's message as an agent's prompt, with Sightline's promises kept.

Words go as a `text` block. Pictures go as `image` blocks to an agent that takes
them (its `promptCapabilities.image`), and one whose model runs off this computer
is named in a notice with the crossing's facts; for an agent that doesn't, the
describer puts them into words, who looks decided as for any blind model, with the
agent's `local` deciding whether the chat is local. A PDF is Sightline's reading
of it: an embedded text `resource` for an agent that takes embedded context, the
words of the message otherwise; a scan's rendered pages are pictures like any other.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any
from urllib.parse import quote

from acp import embedded_text_resource, resource_block

from app.store import Store
from app.turn.acp.content import prompt_blocks
from app.turn.acp.session import AgentSession
from app.turn.engine import agent_model
from app.turn.engine_words import EngineWords, blind_engine
from app.turn.events import ItemAdded, TurnEvent, UsageAdded
from routing.documents import flatten_pages, pdf_reading, pdfs_for_model
from routing.transcript import (
    Crossed,
    Message,
    Notice,
    NoticeKind,
    PagesPart,
    Part,
    PdfPart,
    TextPart,
)


class AgentPrompt:
    """Makes each turn's prompt blocks, storing the notices they need."""

    def __init__(self, store: Store, words: EngineWords) -> None:
        self.store = store
        self.words = words  # who looks at pictures for an agent that doesn't take them

    async def blocks(
        self,
        session: AgentSession,
        conversation_id: str,
        ref: str,
        message: Message,
        blocks: list[Any],
    ) -> AsyncIterator[TurnEvent]:
        """Fill `blocks` with the prompt; yield the events of what it stored on the way."""
        resources: list[Any] = []
        if session.embeds and message.pdfs:
            message, resources = _pdfs_as_resources(message)
        read = flatten_pages(pdfs_for_model((message,), reads_pdfs=False).messages)
        prepared = read[0]
        if prepared.pictures and session.sees:
            if not session.agent.is_local:
                yield ItemAdded(self._crossing(session, conversation_id, ref, prepared))
        elif prepared.pictures:
            worded = None
            async for event in self._in_words(session, conversation_id, ref, prepared):
                if isinstance(event, Message):
                    worded = event
                else:
                    yield event
            prepared = worded or prepared
        blocks.extend(prompt_blocks(prepared, with_pictures=session.sees))
        blocks.extend(resources)

    def _crossing(
        self, session: AgentSession, conversation_id: str, ref: str, message: Message
    ) -> Any:
        agent = session.agent
        labels = ", ".join(p.label or "a picture" for p in message.pictures)
        count = len(message.pictures)
        what = f"{count} picture{'s' if count != 1 else ''} ({labels})"
        notice = Notice(
            NoticeKind.INFO,
            f"{what} went to the agent {agent.id}, whose model runs off this computer.",
            crossed=Crossed(ref, f"agent {agent.id}", what, "you sent them", False),
        )
        return self.store.add_notice(conversation_id, notice)

    async def _in_words(
        self, session: AgentSession, conversation_id: str, ref: str, message: Message
    ) -> AsyncIterator[TurnEvent | Message]:
        """Pictures described for an agent that doesn't take them."""
        agent = session.agent
        model = blind_engine(agent.id, agent_model(ref), local=agent.is_local)
        worded = await self.words.words((message,), model)
        for notice in worded.notices:
            yield ItemAdded(self.store.add_notice(conversation_id, notice))
        if worded.usage is not None:
            yield UsageAdded(worded.usage, "describer")
        yield worded.messages[0]


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
