"""Ollama's models on this computer, managed: pulled with their progress, and deleted.

`pull` streams `POST /api/pull` (NDJSON) as `PullProgress` (routing/pull_progress.py):
Ollama's status words, the bytes of every layer so far, the percent and a speed
measured over the last few seconds. `delete` is `DELETE /api/delete`. Both go
through the chat's funnel, Ollama's wire (routing/wires/http.py): its client (direct
for a server on this computer, never a proxy), its timeouts, reading within bounds,
its status table; only their failures' words are their own, each naming the model. Cancelling
the task that reads a pull closes its connection, and Ollama stops a pull whose
client went away (it keeps the layers it finished, so pulling again carries on).

`VISION_MODELS` are the small models that see which Sightline offers to pull
when a local chat meets a picture and nothing here can look.
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncGenerator, Callable, Mapping
from contextlib import aclosing
from typing import Any

import httpx

from routing.addresses import ollama_base_url
from routing.endpoints import look_up, without_credentials
from routing.errors import (
    CannotConnect,
    KeyProblem,
    ModelNotFound,
    Overloaded,
    ProviderError,
    ServerError,
    TimedOut,
)
from routing.models import ProviderConfig
from routing.pull_progress import SPEED_WINDOW, PullProgress, PullTracker, TooManyLayers
from routing.wires.bounded import ERROR_BODY_CAP, IdleDeadline, ndjson_lines
from routing.wires.http import ErrorAnswer
from routing.wires.ollama import OllamaWire
from routing.wires.ollama_errors import error_text, malformed, not_ollama
from routing.wires.payload import load_json
from routing.wires.statuses import Failure, failure_of

__all__ = [
    "LINE_CAP",
    "SPEED_WINDOW",
    "VISION_MODELS",
    "PullProgress",
    "PullTracker",
    "delete",
    "listed_name",
    "pull",
    "pull_failure",
]

# Small models that see, with their download sizes as ollama.com/library lists them
# (approximate: the pull's own totals replace them once Ollama reports them). Smallest
# useful first after the best all-rounder; llava last as the widely known fallback.
VISION_MODELS: tuple[tuple[str, int], ...] = (
    ("qwen2.5vl:3b", 3_200_000_000),
    ("gemma3:4b", 3_300_000_000),
    ("granite3.2-vision:2b", 2_400_000_000),
    ("moondream:1.8b", 1_700_000_000),
    ("llava:7b", 4_700_000_000),
)

# A progress line is about 150 bytes; anything near this is not Ollama talking.
LINE_CAP = 64 * 1024
# Longest silence while pulling: verifying a large layer's digest sends nothing for a
# while on a slow disk, and Ollama retries a stalled download itself meanwhile.
READ_TIMEOUT = 300.0
_WORDS_SHOWN = 300  # of Ollama's own words in a message (all of them stay in .detail)


def listed_name(name: str) -> str:
    """The name Ollama lists a pulled model by: a bare name gets its `latest` tag."""
    name = name.strip()
    last = name.rpartition("/")[2]
    return name if ":" in last else f"{name}:latest"


# -- where Ollama is ---------------------------------------------------------------


class _ModelWire(OllamaWire):
    """Ollama's wire as a pull or a delete of one model uses it: the chat's client, bounds
    and funnel, with failures that name the model and what was being done to it."""

    def __init__(self, provider: ProviderConfig, name: str, action: str) -> None:
        super().__init__(provider, timeout=READ_TIMEOUT)
        self.name, self.action = name, action

    def classify(self, answer: ErrorAnswer) -> ProviderError:
        """An error answer: Ollama's words about the model, or not Ollama at all."""
        words, pid = error_text(answer.text), self.provider.id
        if words is None:
            what = f"HTTP {answer.status} without an error"
            return not_ollama(answer.text, pid, server=self.server, what=what)
        if self.action == "delete" and answer.status == 404:
            return ModelNotFound(
                f"{self.name} is not installed in Ollama at {self.server}, so there was "
                "nothing to delete.",
                provider_id=pid,
                detail=f"HTTP 404: {answer.text[:_WORDS_SHOWN]}",
            )
        return pull_failure(
            words, self.name, pid, server=self.server, status=answer.status, action=self.action
        )

    def names_help(self, error: ModelNotFound) -> bool:
        """Never: the installed models say nothing about a model the library lacks."""
        return False

    def transport_error(self, exc: httpx.HTTPError) -> ProviderError:
        """A failure to talk to Ollama at all, naming the model it was about."""
        detail = without_credentials(f"{type(exc).__name__}: {exc}")
        if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
            return CannotConnect(
                f"Nothing answered at {self.server}, so Sightline could not {self.action} "
                f"{self.name}. Is Ollama running? Start it, then try again.",
                provider_id=self.provider.id,
                detail=detail,
            )
        if isinstance(exc, httpx.ReadTimeout):
            return _silent(self, READ_TIMEOUT, detail)
        if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError):
            return _stopped(self, detail)
        return super().transport_error(exc)


async def _wire(
    base_url: str,
    name: str,
    action: str,
    provider_id: str,
    local: bool | None,
    environ: Mapping[str, str] | None,
) -> _ModelWire:
    located = ollama_base_url(base_url, os.environ if environ is None else environ)
    await look_up([located])  # the wire's `is_local` then never waits on DNS on this thread
    return _ModelWire(ProviderConfig(provider_id, "ollama", located, local=local), name, action)


class _PullDeadline(IdleDeadline):
    """A pull's idle deadline: blank keep-alive lines are no progress."""

    def __init__(self, wire: _ModelWire, limit: float) -> None:
        super().__init__(limit, server=wire.server, provider_id=wire.provider.id)
        self.wire = wire

    def stalled(self) -> TimedOut:
        """A pull Ollama said nothing of for `limit` seconds."""
        return _silent(self.wire, self.limit)


# -- pulling -----------------------------------------------------------------------


async def pull(
    base_url: str,
    name: str,
    *,
    provider_id: str = "ollama",
    local: bool | None = None,
    environ: Mapping[str, str] | None = None,
    clock: Callable[[], float] = time.monotonic,
    idle_limit: float = READ_TIMEOUT,
) -> AsyncGenerator[PullProgress, None]:
    """Pull `name` into the Ollama at `base_url` ("" or an address: OLLAMA_HOST's rules),
    yielding its progress up to the line that says success; `TimedOut` once `idle_limit`
    seconds pass without a progress line (blank keep-alive lines are none).

    A failure is a `ProviderError` naming the model: `ModelNotFound` for a name the
    library doesn't know, `CannotConnect` when Ollama can't be reached (or can't reach
    its library), `ServerError` when the connection drops before success. Read it
    inside `aclosing` so cancelling the reader closes the connection at once.
    """
    name = name.strip()
    if not name:
        raise ModelNotFound("Type the name of a model to pull, such as qwen2.5vl:3b.")
    wire = await _wire(base_url, name, "pull", provider_id, local, environ)
    tracker = PullTracker(clock=clock)
    body = {"model": name, "stream": True}
    try:
        async with wire.opened(f"{wire.base_url}/api/pull", body) as response:
            lines = ndjson_lines(response, provider_id=wire.provider.id, cap=LINE_CAP)
            steps = _PullDeadline(wire, idle_limit).watch(_progress(lines, tracker, wire))
            async with aclosing(steps):
                async for progress in steps:
                    yield progress
                    if progress.done:
                        return
    finally:
        await wire.aclose()
    raise _stopped(wire, "the stream ended before Ollama said success")


async def _progress(
    lines: AsyncGenerator[str, None], tracker: PullTracker, wire: _ModelWire
) -> AsyncGenerator[PullProgress, None]:
    """The pull's progress, a line at a time; blank lines (keep-alives) passed over."""
    async with aclosing(lines):
        async for line in lines:
            if not line.strip():
                continue
            try:
                progress = tracker.step(_progress_line(line, wire))
            except TooManyLayers as exc:
                pid, server = wire.provider.id, wire.server
                raise malformed(pid, f"{exc} in one pull", line, server=server) from None
            yield progress


def _silent(wire: _ModelWire, seconds: float, detail: str = "") -> TimedOut:
    """A pull Ollama said nothing of for `seconds`."""
    return TimedOut(
        f"Ollama at {wire.server} said nothing about {wire.name} for {seconds:g} seconds, so "
        "Sightline stopped waiting. Try again.",
        provider_id=wire.provider.id,
        detail=detail or f"no progress line for {seconds:g} s (blank lines don't count)",
    )


def _progress_line(line: str, wire: _ModelWire) -> Mapping[str, Any]:
    """One line of the pull as a progress object; its `error` raised as ours."""
    pid, server = wire.provider.id, wire.server
    try:
        obj = load_json(line)
    except ValueError:
        raise not_ollama(line, pid, server=server) from None
    if not isinstance(obj, dict):
        raise malformed(pid, "a line that is not a JSON object", line, server=server)
    if "error" in obj:
        error = obj["error"]
        words = error.get("message", "") if isinstance(error, dict) else error
        raise pull_failure(str(words), wire.name, pid, server=server)
    if not isinstance(obj.get("status"), str):
        raise malformed(pid, "a progress line without a status", line, server=server)
    return obj


def pull_failure(
    words: str,
    name: str,
    provider_id: str = "ollama",
    *,
    server: str = "",
    status: int = 200,
    action: str = "pull",
) -> ProviderError:
    """What Ollama said about a pull (or a delete: `action`) that failed, in the stream or
    with `status`, as ours."""
    detail = f"HTTP {status}: {words}" if status >= 400 else f"in the pull stream: {words}"
    kw: dict[str, Any] = {"provider_id": provider_id, "detail": detail}
    low = words.lower()
    at = f" at {server}" if server else ""
    if "file does not exist" in low or ("manifest" in low and "not found" in low):
        return ModelNotFound(
            f"Ollama's library has no model called {name}. Check the name and its tag "
            "(such as qwen2.5vl:3b) on ollama.com/library.",
            **kw,
        )
    if "invalid model name" in low or ("name" in low and "invalid" in low):
        return ModelNotFound(
            f"“{name}” is not a model name Ollama takes. Names look like qwen2.5vl:3b: "
            "the model, a colon, and its size or tag.",
            **kw,
        )
    if "no space left" in low:
        return ServerError(
            f"The Ollama{at} ran out of disk space while pulling {name}. Free some space, "
            "or delete a model you no longer use, then pull it again.",
            **kw,
        )
    offline = ("dial tcp", "no such host", "connection refused", "i/o timeout", "unreachable")
    if any(phrase in low for phrase in offline) or "deadline exceeded" in low:
        return CannotConnect(
            f"Ollama could not reach its library to download {name}. Check that this "
            "computer is online, then pull it again.",
            **kw,
        )
    failure = Failure.UNAUTHORIZED if "unauthorized" in low else failure_of(status)
    if failure in (Failure.UNAUTHORIZED, Failure.FORBIDDEN):
        return KeyProblem(
            f"The library refused to give Ollama {name}: it may be private or misspelled. "
            "Check the name.",
            **kw,
        )
    if failure is Failure.UNAVAILABLE:
        return Overloaded(f"The Ollama{at} is busy: wait a moment and pull {name} again.", **kw)
    shown = words.strip()[:_WORDS_SHOWN] or "no reason given"
    return ServerError(
        f"Ollama could not {action} {name} ({shown}). Try again; if it keeps failing, check "
        "Ollama's log.",
        **kw,
    )


def _stopped(wire: _ModelWire, detail: str) -> ServerError:
    return ServerError(
        f"Pulling {wire.name} stopped: the connection to Ollama at {wire.server} dropped "
        "before it finished. Pull it again to carry on (Ollama keeps what it already has).",
        provider_id=wire.provider.id,
        detail=detail,
    )


# -- deleting ----------------------------------------------------------------------


async def delete(
    base_url: str,
    name: str,
    *,
    provider_id: str = "ollama",
    local: bool | None = None,
    environ: Mapping[str, str] | None = None,
) -> None:
    """Delete the model `name` from the Ollama at `base_url`; `ModelNotFound` when it is
    not installed there."""
    wire = await _wire(base_url, name, "delete", provider_id, local, environ)
    try:
        answer = await wire.read(
            f"{wire.base_url}/api/delete",
            method="DELETE",
            what="the answer to a delete",
            cap=ERROR_BODY_CAP,  # Ollama answers a delete with nothing at all
            json={"model": name},
        )
    finally:
        await wire.aclose()
    if answer.status_code != 200:
        raise wire.classify(ErrorAnswer(answer.status_code, answer.text, answer.headers))
