"""What goes wrong with an MCP server, in words the person and the model can act on.

A server that can't start raises `McpStartError`, whose message says why and how to
fix it; a call that produced no MCP result is a `CallFailure`, worded here for the
error result the model reads. Every text made here is redacted (routing/secrets.py):
it quotes the server's last output and its settings, which may hold its token.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import ParamSpec

import anyio
from mcp import types
from mcp.shared.exceptions import MCPError

from app.tools.mcp.config import McpServerConfig
from routing.secrets import redact

P = ParamSpec("P")

# What to install when a usual launcher is missing (the settings' "command").
_INSTALL_HINTS = dict.fromkeys(("npx", "node", "npm"), "Node.js") | {
    "uvx": "uv",
    "uv": "uv",
    "docker": "Docker",
    "python": "Python",
    "python3": "Python",
    "bunx": "Bun",
    "deno": "Deno",
}


class McpStartError(Exception):
    """A server that could not start; the message says why and how to fix it."""


@dataclass(eq=False)
class CallFailure:
    """Why a call produced no MCP result; the caller words it."""

    kind: str  # "stopped", "gone" (never sent), "closed", "timeout", "refused", "bad_answer"
    detail: str = ""


def not_started(config: McpServerConfig) -> str:
    """Why a server the settings describe but Sightline can't run was left alone."""
    return redact(f"The MCP server {config.name} was not started: {config.unsupported}.")


def _leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups, or the exception itself."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _redacted(words: Callable[P, str]) -> Callable[P, str]:
    """The same wording, with every secret in use taken out (a child may print its token)."""

    @functools.wraps(words)
    def redacted(*args: P.args, **kwargs: P.kwargs) -> str:
        return redact(words(*args, **kwargs))

    return redacted


@_redacted
def start_problem(
    config: McpServerConfig,
    exc: BaseException | None,
    *,
    start_timeout: float,
    closing: bool,
    last_output: Iterable[str],
) -> str:
    """Why the server could not start, and what to do, in words.

    `exc` is what ended the start (None: it ended without an answer); `last_output`
    is the last lines the child wrote to stderr.
    """
    name, command = config.name, config.command
    opening = f"The MCP server {name} could not start"
    if exc is None:
        if closing:
            return f"The MCP server {name} was closed while starting."
        return (
            f"{opening}: it did not answer within {start_timeout:g} s. Check that "
            f'"{command}" starts an MCP server that speaks over stdio.'
        )
    leaf = next(
        (e for e in _leaves(exc) if not isinstance(e, anyio.get_cancelled_exc_class())), exc
    )
    tail = list(last_output)
    last_words = f" Its last output: {' / '.join(tail)}" if tail else ""
    if isinstance(leaf, FileNotFoundError):
        if config.cwd and leaf.filename == config.cwd:
            return f'{opening}: its folder "{config.cwd}" does not exist; fix its "cwd".'
        program = _INSTALL_HINTS.get(os.path.basename(command).lower().removesuffix(".exe"))
        install = f"Install {program}" if program else "Install the program that provides it"
        return (
            f'{opening}: the command "{command}" was not found. {install}, or put the '
            f'full path of "{command}" in the server\'s "command".'
        )
    if isinstance(leaf, PermissionError):
        return f'{opening}: the command "{command}" is not allowed to run (permission denied).'
    if isinstance(leaf, OSError):
        return f'{opening}: running "{command}" failed ({leaf.strerror or leaf}).'
    if isinstance(leaf, MCPError) and leaf.code == types.CONNECTION_CLOSED:
        return f'{opening}: "{command}" exited before it was ready.{last_words}'
    if isinstance(leaf, MCPError):
        return f"{opening}: it refused the handshake ({leaf.message}).{last_words}"
    return f"{opening}: {leaf}.{last_words}"


def failure_text(failure: CallFailure, *, server: str, tool: str, timeout: float) -> str:
    """The error result's words for a call to `tool` that produced no MCP result."""
    return redact(_failure_text(failure, server=server, tool=tool, timeout=timeout))


def _failure_text(failure: CallFailure, *, server: str, tool: str, timeout: float) -> str:
    who = f"The MCP server {server}"
    if failure.kind == "timeout":
        return f"{who} did not finish {tool} within {timeout:g} s; the call was stopped."
    if failure.kind == "refused":
        return f"{who} refused the call to {tool}: {failure.detail}"
    if failure.kind == "bad_answer":
        return f"{who} answered {tool} with something that can't be used: {failure.detail}"
    if failure.kind == "gone":
        return f"{who} stopped twice before it could run {tool}."
    if failure.kind == "closed":
        return f"{who} was closed while running {tool}."
    return f"{who} stopped while running {tool}. It will be started again on the next call."
