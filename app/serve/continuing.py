"""Which stored conversation a client's follow-up continues, if any.

The chat APIs keep no conversation on the server: a client sends its whole conversation
each time, its earlier messages and then its new question. Stored as a new conversation
every time, one chat in another app would be a row in the sidebar per question. So a
request whose earlier messages are exactly what one of the same client's served
conversations holds (every role, every message's words and every picture, by hash, every
tool call by its name and arguments, every tool result by its name, words and pictures)
and whose system prompt is the one that conversation keeps continues it. So a client's
tool round trip continues its conversation: the answer that called the client's tools is
stored, and the request that brings their results holds it (calls are compared without
their ids: an Ollama client sends none back, and its results are given the stored ids).

Looked for among the client's few newest served conversations only, compared with what
the store holds now (the person may have edited or deleted a message in the window), and
on any doubt — an answer stopped or failed, a message changed, a turn still running in
it — the request gets a new conversation, as before.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterable
from dataclasses import replace

from app.store import Store
from routing.transcript import Message, MessageStatus

RECENT = 8  # a client's newest served conversations looked at, no more


def fingerprint(messages: Iterable[Message]) -> str:
    """What a conversation says, as one hash: each message's role, its words (trimmed, as
    clients often send them back), its pictures' hashes, its tool calls (name and
    arguments) and tool results (name, words, pictures' hashes), in order."""
    digest = hashlib.sha256()
    for message in messages:
        results = message.tool_results
        said = [
            message.role,
            message.text.strip(),
            [p.sha256 for p in message.pictures],
            [[c.name, dict(c.arguments)] for c in message.tool_calls],
            [[r.name, r.text.strip(), [p.sha256 for p in r.pictures]] for r in results],
        ]
        encoded = json.dumps(said, ensure_ascii=False, sort_keys=True, default=str)
        digest.update(encoded.encode() + b"\n")
    return digest.hexdigest()


def answering(stored: Message, sent: Message, question: Message) -> Message:
    """`question`'s tool results naming their calls by the ids `stored` (the answer they
    follow, as kept) gives them: a result answers the call in the same place there as its
    call has in `sent`, that answer as the client sent it back (the fingerprint matched,
    so the calls are the same, in order)."""
    if question.role != "tool" or len(stored.tool_calls) != len(sent.tool_calls):
        return question
    kept = {c.id: k.id for c, k in zip(sent.tool_calls, stored.tool_calls, strict=True)}
    results = tuple(
        replace(r, call_id=kept.get(r.call_id, r.call_id)) for r in question.tool_results
    )
    return replace(question, parts=results)


def continued(
    store: Store,
    title: str,
    history: tuple[Message, ...],
    system_prompt: str | None,
    running: Collection[str],
) -> str | None:
    """The conversation titled `title` (the client's) that holds exactly `history` under
    `system_prompt`, newest first; None when there is none, or no history to continue.
    A conversation in `running` has a turn going: it is never joined."""
    if not history:
        return None
    wanted = fingerprint(history)
    for summary in store.conversations.titled(title, RECENT):
        if summary.id in running:
            continue
        stored = store.messages(summary.id)
        if len(stored) != len(history):
            continue
        if any(m.status is not MessageStatus.COMPLETE for m in stored):
            continue
        if store.conversations.settings(summary.id).system_prompt != system_prompt:
            continue
        if fingerprint(stored) == wanted:
            return summary.id
    return None
