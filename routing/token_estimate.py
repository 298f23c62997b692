"""How many tokens a request will take, before it is sent.

No tokenizer ships with Sightline (each model has its own), so words are counted by
their characters, at fewer characters a token than English averages so the estimate
errs high; `Calibration` then scales it per model by what its server reported it
counted for the last request. Pictures cost what each provider documents
(docs/providers.md). Counting words by their length costs nothing per character (a
string knows its length); what costs is visiting each part of each message, so an
`Estimator` keeps each message's count while the message lives: a long chat's send
counts only what is new since the last (benchmarks/bench_context.py, bench_send.py).
"""

from __future__ import annotations

import json
import math
import weakref
from collections.abc import Iterable

from routing.transcript import (
    CarriedPart,
    Message,
    PagesPart,
    PdfPart,
    PicturePart,
    TextPart,
    ToolCall,
    ToolResult,
)
from routing.wires.base import ToolSpec
from vision.pictures import Picture

CHARS_PER_TOKEN = 3.5  # English averages about 4 on today's tokenizers: this errs high
MESSAGE_OVERHEAD = 4  # the role and the separators every chat template adds
PDF_TOKENS = 3000  # a PDF sent as a PDF, a page's worth of text and its picture
# Scaled by what servers report, within bounds: one odd report (a cache's discount, a
# server that counts only part) must not wreck the next fit, and too low a count costs a
# failed turn where too high costs only an older turn left out.
SCALE_LEAST, SCALE_MOST = 0.8, 3.0


def text_tokens(text: str) -> int:
    """The tokens of some words, erring high."""
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0


def picture_tokens(kind: str, width: int, height: int) -> int:
    """What one picture costs a model of this provider kind, as its provider documents."""
    if kind == "anthropic":  # (width × height) / 750, the picture being at most ~1.15 MP
        return min(math.ceil(width * height / 750), 1600)
    if kind == "gemini":
        return 258
    if kind in ("openai", "openrouter", "azure"):  # 85 + 170 a 512-pixel tile, high detail
        scale = min(1.0, 2048 / max(width, height, 1))
        w, h = width * scale, height * scale
        shortest = min(w, h)
        if shortest > 768:
            w, h = w * 768 / shortest, h * 768 / shortest
        return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)
    # Local vision models (Qwen-VL's 28-pixel patches, LLaVA's 576): by area, bounded.
    return max(256, min(math.ceil(width * height / (28 * 28)), 1280))


class Estimator:
    """Estimates for one provider kind's models.

    Each message's count is kept while the message lives, by its id beside a weak
    reference to it (so an id reused by another message is never taken for it, and no
    message is kept alive for its count): a turn counts the same messages of a long chat
    request after request, and the store hands back the same objects each time.
    """

    KEPT = 50_000  # counts kept (a few MB) before they are all let go

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._counted: dict[int, tuple[weakref.ref[Message], int]] = {}

    def picture(self, picture: Picture) -> int:
        """One picture's tokens."""
        return picture_tokens(self.kind, picture.width, picture.height)

    def message(self, message: Message) -> int:
        """One message's tokens: its words, pictures, calls and results."""
        found = self._counted.get(id(message))
        if found is not None and found[0]() is message:
            return found[1]
        tokens = MESSAGE_OVERHEAD + sum(self._part(part) for part in message.parts)
        if len(self._counted) >= self.KEPT:
            self._counted.clear()
        self._counted[id(message)] = (weakref.ref(message), tokens)
        return tokens

    def _part(self, part: object) -> int:
        if isinstance(part, TextPart):
            return text_tokens(part.text)
        if isinstance(part, PicturePart):
            return self.picture(part.picture)
        if isinstance(part, PagesPart):
            return text_tokens(part.lead_in) + sum(self.picture(p) for p in part.pictures)
        if isinstance(part, PdfPart):
            return PDF_TOKENS
        if isinstance(part, ToolCall):
            return text_tokens(part.name) + text_tokens(json.dumps(dict(part.arguments)))
        if isinstance(part, ToolResult):
            return text_tokens(part.text) + sum(self.picture(p) for p in part.pictures)
        if isinstance(part, CarriedPart):
            return text_tokens(json.dumps(dict(part.data)))
        return 0

    def messages(self, messages: Iterable[Message]) -> int:
        """Several messages' tokens."""
        return sum(self.message(m) for m in messages)


def tools_tokens(specs: Iterable[ToolSpec]) -> int:
    """What the tools' descriptions take in the request."""
    return sum(
        text_tokens(spec.name + spec.description + json.dumps(spec.parameters)) for spec in specs
    )


class Calibration:
    """Per model, the ratio of what its server counted to what was estimated."""

    def __init__(self) -> None:
        self._scale: dict[str, float] = {}

    def scale(self, ref: str) -> float:
        """What this model's server counts for each token estimated (1.0 until it reports)."""
        return self._scale.get(ref, 1.0)

    def reported(self, ref: str, estimate: int, counted: int) -> None:
        """The server counted `counted` input tokens for a request estimated at `estimate`."""
        if estimate <= 0 or counted <= 0:
            return
        self._scale[ref] = min(max(counted / estimate, SCALE_LEAST), SCALE_MOST)
