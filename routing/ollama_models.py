"""Ollama's models on this computer, managed: pulled with their progress, and deleted.

`pull` streams `POST /api/pull` (NDJSON) as `PullProgress` (routing/pull_progress.py):
Ollama's status words, the bytes of every layer so far, the percent and a speed
measured over the last few seconds. `delete` is `DELETE /api/delete`. Both go
through the same client as the wires (routing/wires/client.py: direct for a server
on this computer, never a proxy) and read within bounds (routing/wires/bounded.py);
every failure is one error of routing/errors.py that names the model. Cancelling
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
from dataclasses import dataclass
from typing import Any

import httpx

from routing.addresses import ollama_base_url
from routing.endpoints import endpoint_name, look_up, without_credentials
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
from routing.presets import preset_for
from routing.pull_progress import SPEED_WINDOW, PullProgress, PullTracker, TooManyLayers
from routing.wires.bounded import ERROR_BODY_CAP, IdleDeadline, fetch, ndjson_lines, read_error
from routing.wires.client import http_client
from routing.wires.http_errors import translate_transport
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
CONNECT_TIMEOUT = 10.0
_WORDS_SHOWN = 300  # of Ollama's own words in a message (all of them stay in .detail)


def listed_name(name: str) -> str:
    """The name Ollama lists a pulled model by: a bare name gets its `latest` tag."""
    name = name.strip()
    last = name.rpartition("/")[2]
    return name if ":" in last else f"{name}:latest"


# -- where Ollama is ---------------------------------------------------------------


@dataclass(frozen=True)
class _Ollama:
    """One Ollama server as a pull or delete reaches it."""

    base_url: str
    provider: ProviderConfig
    local: bool

    @property
    def server(self) -> str:
        return endpoint_name(self.base_url)

    def client(self) -> httpx.AsyncClient:
        return http_client(self.base_url, local=self.local, provider_id=self.provider.id)


async def _reach(
    base_url: str, provider_id: str, local: bool | None, environ: Mapping[str, str] | None
) -> _Ollama:
    located = ollama_base_url(base_url, os.environ if environ is None else environ)
    await look_up([located])  # `is_local` below then never waits on DNS on this thread
    provider = ProviderConfig(provider_id, "ollama", located, local=local)
    return _Ollama(located, provider, provider.is_local)


_TIMEOUT = httpx.Timeout(READ_TIMEOUT, connect=CONNECT_TIMEOUT)


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
    where = await _reach(base_url, provider_id, local, environ)
    pid = where.provider.id
    tracker = PullTracker(clock=clock)
    async with where.client() as client:
        try:
            async with client.stream(
                "POST",
                f"{where.base_url}/api/pull",
                json={"model": name, "stream": True},
                timeout=_TIMEOUT,
            ) as response:
                if response.status_code != 200:
                    text = await read_error(response, provider_id=pid)
                    raise _answer_error(response.status_code, text, name, where)
                lines = ndjson_lines(response, provider_id=pid, cap=LINE_CAP)
                deadline = IdleDeadline(idle_limit, server=where.server, provider_id=pid)
                steps = deadline.watch(_progress(lines, tracker, name, where))
                async with aclosing(steps):
                    async for progress in steps:
                        yield progress
                        if progress.done:
                            return
        except httpx.HTTPError as exc:
            raise _transport(exc, name, where) from exc
        except TimedOut:  # only keep-alives, or nothing, for idle_limit
            raise _silent(name, where, idle_limit) from None
    raise _stopped(name, where, "the stream ended before Ollama said success")


async def _progress(
    lines: AsyncGenerator[str, None], tracker: PullTracker, name: str, where: _Ollama
) -> AsyncGenerator[PullProgress, None]:
    """The pull's progress, a line at a time; blank lines (keep-alives) passed over."""
    async with aclosing(lines):
        async for line in lines:
            if not line.strip():
                continue
            try:
                progress = tracker.step(_progress_line(line, name, where))
            except TooManyLayers as exc:
                pid, server = where.provider.id, where.server
                raise malformed(pid, f"{exc} in one pull", line, server=server) from None
            yield progress


def _silent(name: str, where: _Ollama, seconds: float, detail: str = "") -> TimedOut:
    """A pull Ollama said nothing of for `seconds`."""
    return TimedOut(
        f"Ollama at {where.server} said nothing about {name} for {seconds:g} seconds, so "
        "Sightline stopped waiting. Try again.",
        provider_id=where.provider.id,
        detail=detail or f"no progress line for {seconds:g} s (blank lines don't count)",
    )


def _progress_line(line: str, name: str, where: _Ollama) -> Mapping[str, Any]:
    """One line of the pull as a progress object; its `error` raised as ours."""
    pid = where.provider.id
    try:
        obj = load_json(line)
    except ValueError:
        raise not_ollama(line, pid, server=where.server) from None
    if not isinstance(obj, dict):
        raise malformed(pid, "a line that is not a JSON object", line, server=where.server)
    if "error" in obj:
        error = obj["error"]
        words = error.get("message", "") if isinstance(error, dict) else error
        raise pull_failure(str(words), name, pid, server=where.server)
    if not isinstance(obj.get("status"), str):
        raise malformed(pid, "a progress line without a status", line, server=where.server)
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


def _answer_error(
    status: int, text: str, name: str, where: _Ollama, action: str = "pull"
) -> ProviderError:
    """An error answer to a pull or delete: Ollama's words, or not Ollama at all."""
    words = error_text(text)
    pid = where.provider.id
    if words is None:
        return not_ollama(text, pid, server=where.server, what=f"HTTP {status} without an error")
    return pull_failure(words, name, pid, server=where.server, status=status, action=action)


def _stopped(name: str, where: _Ollama, detail: str) -> ServerError:
    return ServerError(
        f"Pulling {name} stopped: the connection to Ollama at {where.server} dropped before "
        "it finished. Pull it again to carry on (Ollama keeps what it already has).",
        provider_id=where.provider.id,
        detail=detail,
    )


def _transport(
    exc: httpx.HTTPError, name: str, where: _Ollama, action: str = "pull"
) -> ProviderError:
    """A failure to talk to Ollama at all, naming the model it was about."""
    detail = without_credentials(f"{type(exc).__name__}: {exc}")
    pid = where.provider.id
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
        return CannotConnect(
            f"Nothing answered at {where.server}, so Sightline could not {action} {name}. "
            "Is Ollama running? Start it, then try again.",
            provider_id=pid,
            detail=detail,
        )
    if isinstance(exc, httpx.ReadTimeout):
        return _silent(name, where, READ_TIMEOUT, detail)
    if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError):
        return _stopped(name, where, detail)
    return translate_transport(where.provider, exc, preset=preset_for("ollama"))


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
    where = await _reach(base_url, provider_id, local, environ)
    pid = where.provider.id
    async with where.client() as client:
        try:
            answer = await fetch(
                client,
                "DELETE",
                f"{where.base_url}/api/delete",
                cap=ERROR_BODY_CAP,  # Ollama answers a delete with nothing at all
                what="the answer to a delete",
                provider_id=pid,
                json={"model": name},
                timeout=_TIMEOUT,
            )
        except httpx.HTTPError as exc:
            raise _transport(exc, name, where, "delete") from exc
    if answer.status_code == 200:
        return
    if answer.status_code == 404 and error_text(answer.text) is not None:
        raise ModelNotFound(
            f"{name} is not installed in Ollama at {where.server}, so there was nothing to delete.",
            provider_id=pid,
            detail=f"HTTP 404: {answer.text[:_WORDS_SHOWN]}",
        )
    raise _answer_error(answer.status_code, answer.text, name, where, "delete")
