"""What the fake Ollama can pull: a small library, and a pull's progress lines in Ollama's shape.

Ollama's `PullModel` (server/images.go) reports "pulling manifest", then each layer
as `{"status":"pulling <12 hex of its digest>","digest":"sha256:…","total":N,
"completed":M}` (Go's omitempty: no `completed` while it is 0), then "verifying
sha256 digest", "writing manifest" and "success". An error ends the stream with an
`{"error": …}` line on the same 200 answer, since the progress has begun.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tests.servers.loopback import ScriptedReply

# Ollama's words: a name its library lacks (the registry's 404 is os.ErrNotExist), a
# name that is no name, and the error a registry that can't be reached gives mid-pull.
PULL_NOT_FOUND = "pull model manifest: file does not exist"
INVALID_NAME = "invalid model name"
DELETE_INVALID = 'name "{name}" is invalid'
OFFLINE = (
    'max retries exceeded: Get "https://registry.ollama.ai/v2/library/{base}/blobs/sha256:{digest}"'
    ": dial tcp: lookup registry.ollama.ai: no such host"
)
# What Ollama's model.ParseName accepts, near enough: letters, digits and a few marks.
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/-]*$")
# The small layers every model carries besides its weights: template, license, params.
_SMALL_LAYERS = (1_502, 11_357, 148)


@dataclass(frozen=True)
class LibraryModel:
    """A model the library offers: what it becomes once pulled, and its download size."""

    name: str
    capabilities: tuple[str, ...]
    size: int  # every layer together, as ollama.com/library lists it
    context_length: int = 8192

    def layers(self) -> list[tuple[str, int]]:
        """(digest, bytes) of each layer, the weights first."""
        sizes = [self.size - sum(_SMALL_LAYERS), *_SMALL_LAYERS]
        return [
            ("sha256:" + hashlib.sha256(f"{self.name}/{i}".encode()).hexdigest(), size)
            for i, size in enumerate(sizes)
        ]


LIBRARY = (
    LibraryModel("qwen2.5vl:3b", ("completion", "vision", "tools"), 3_200_000_000, 128000),
    LibraryModel("gemma3:4b", ("completion", "vision"), 3_300_000_000, 131072),
    LibraryModel("granite3.2-vision:2b", ("completion", "vision", "tools"), 2_400_000_000, 16384),
    LibraryModel("moondream:1.8b", ("completion", "vision"), 1_700_000_000, 2048),
    LibraryModel("llava:7b", ("completion", "vision"), 4_700_000_000, 32768),
    LibraryModel("smollm2:135m", ("completion", "tools"), 270_000_000, 8192),
)


def valid_name(name: str) -> bool:
    """Whether Ollama would take `name` as a model's name at all."""
    return bool(_NAME.match(name)) and len(name) <= 350


@dataclass
class PullReply(ScriptedReply):
    """How the next /api/pull answers. `delay` comes before each line (slow: a test can
    cancel), `drop_after` cuts the connection after that many lines; `error_after` sends
    `error` as the line after that many (Ollama's words for a library it can't reach,
    unless given); `status`/`body` refuse the pull before it starts."""

    steps: int = 4  # progress lines of the weights layer after its first
    error_after: int | None = None
    error: str = ""


@dataclass
class PullRun:
    """One pull as the server saw it: the model asked for, and how it ended."""

    name: str
    outcome: str = "running"  # success, error, dropped (on purpose), client gone
    lines_sent: int = 0
    ended: threading.Event = field(default_factory=threading.Event, repr=False)

    def end(self, outcome: str) -> None:
        """Record how it ended (once)."""
        if not self.ended.is_set():
            self.outcome = outcome
            self.ended.set()


def pull_lines(model: LibraryModel | None, reply: PullReply) -> Iterator[dict[str, Any]]:
    """The progress lines of pulling `model` (None: the library has no such model)."""
    yield {"status": "pulling manifest"}
    if model is None:
        yield {"error": PULL_NOT_FOUND}
        return
    for digest, size in model.layers():
        status = f"pulling {digest[7:19]}"
        yield {"status": status, "digest": digest, "total": size}  # completed 0: left out
        steps = max(reply.steps, 1) if size >= 1_000_000 else 1
        for step in range(1, steps + 1):
            yield {
                "status": status,
                "digest": digest,
                "total": size,
                "completed": size * step // steps,
            }
    yield {"status": "verifying sha256 digest"}
    yield {"status": "writing manifest"}
    yield {"status": "success"}


def scripted(
    lines: Iterator[dict[str, Any]], reply: PullReply, model_name: str
) -> Iterator[dict[str, Any]]:
    """`lines`, ended by an error line after `reply.error_after` of them when it says so."""
    for sent, line in enumerate(lines):
        if reply.error_after is not None and sent >= reply.error_after:
            base = model_name.partition(":")[0]
            yield {"error": reply.error or OFFLINE.format(base=base, digest="0" * 64)}
            return
        yield line
