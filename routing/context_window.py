"""A model's context window: how many tokens it holds, and where that number came from.

Small local models hold a few thousand tokens, and a request past them fails in ways
that look like something else (llama-cpp-python's stream ends empty; Ollama cuts the
prompt's beginning and answers anyway). So every model has a window here, as it has a
sight: the listing's, the server's running setting, the provider's documented rule,
one learned from a refusal that stated it, the chat's own setting, or a conservative
default, said once. The number's home is `ModelInfo.context_window` (resolved in
routing/capabilities.py); this module holds the words and the arithmetic.
"""

from __future__ import annotations

import os
import re
from enum import StrEnum

# What a model nobody describes is taken to hold: small enough for the smallest local
# servers' usual setting (llama.cpp's and LM Studio's defaults are 4,096), so a request
# sized to it fits; a refusal that states the real window replaces it.
DEFAULT_WINDOW = 4096
# Ollama's window is what Sightline asks it to load (options.num_ctx); without a chat's
# setting, the model's trained length within what this machine's memory holds well.
OLLAMA_WINDOWS = ((8 << 30, 4096), (16 << 30, 8192), (32 << 30, 16384))  # memory → window
OLLAMA_MOST = 32768
# A window smaller than this is not a window a refusal means (a stray number).
SMALLEST_WINDOW = 256


class ContextFrom(StrEnum):
    """Where a model's window came from."""

    LISTING = "listing"  # the provider's list of models said it
    SERVER = "server"  # the server's running setting (llama.cpp's n_ctx, LM Studio's loaded)
    PRESET = "preset"  # the provider's documented rule
    LEARNED = "learned"  # a refusal stated it, and it was kept
    SETTING = "setting"  # the chat's own context length (Ollama's num_ctx)
    DEFAULT = "default"  # nobody says: a conservative default


class Overflow(StrEnum):
    """What a chat does once it outgrows its model's window (routing/fitting.py)."""

    LEAVE_OUT = "leave_out"  # the first turn and the newest kept, the oldest between left out
    STOP = "stop"  # nothing left out: the turn stops with what to do


# How refusals state the window, each pattern's one group the window in tokens. Sources:
# docs/providers.md (OpenAI, vLLM, DeepSeek, llama-cpp-python, llama.cpp, Anthropic,
# Gemini, Mistral, LM Studio, Ollama).
_STATED = (
    r"maximum context length is (\d[\d,]*) tokens",  # OpenAI, llama-cpp-python, vLLM, DeepSeek
    r'"n_ctx"\s*:\s*(\d+)',  # llama.cpp's exceed_context_size_error body
    r"available context size \((\d[\d,]*) tokens\)",  # llama.cpp's message
    r"exceed context window of (\d[\d,]*)",  # llama-cpp-python, older
    r"> (\d[\d,]*) maximum",  # Anthropic: prompt is too long: 210000 tokens > 200000 maximum
    r"maximum number of tokens allowed \((\d[\d,]*)\)",  # Gemini
    r"model with (\d[\d,]*) maximum context length",  # Mistral
    r"exceeds (?:the )?context length (?:of )?\(?(\d[\d,]*)",  # LM Studio, Ollama
    r"reached context length of (\d[\d,]*)",  # LM Studio
    r"context (?:window|length|size) (?:is|of) (\d[\d,]*) tokens",  # others' plain words
)


# The documented windows of the providers whose listings don't say (docs/providers.md):
# by model name, the first match wins.
_PRESET_WINDOWS: dict[str, tuple[tuple[re.Pattern[str], int], ...]] = {
    "openai": (
        (re.compile(r"^gpt-4\.1"), 1_047_576),
        (re.compile(r"^gpt-5"), 400_000),
        (re.compile(r"^o[34]"), 200_000),
        (re.compile(r"^gpt-4o|^gpt-4-turbo"), 128_000),
    ),
    "anthropic": ((re.compile(r"^claude-"), 200_000),),  # its listing's max_input_tokens first
    "deepseek": ((re.compile(r"^deepseek-"), 128_000),),
    "xai": ((re.compile(r"^grok-4"), 256_000), (re.compile(r"^grok-3"), 131_072)),
}


def preset_window(kind: str, name: str) -> int | None:
    """The window a provider documents for a model its listing says nothing of."""
    rules = _PRESET_WINDOWS.get(kind, ())
    return next((tokens for pattern, tokens in rules if pattern.search(name)), None)


def resolved_window(
    kind: str, name: str, listed: int | None, listed_from: ContextFrom, learned: int | None
) -> tuple[int, ContextFrom]:
    """A model's one window: a refusal's learned number over all; Ollama's what Sightline
    has it load; else the listing's or server's, the provider's rule, or the default."""
    if learned is not None:
        return learned, ContextFrom.LEARNED
    if kind == "ollama":  # Sightline sends num_ctx: the window is the one it asks for,
        # from the trained length its listing gives (within this machine's memory)
        window = ollama_window(listed, memory_bytes())
        return window, ContextFrom.LISTING if listed else ContextFrom.DEFAULT
    if listed is not None:
        return listed, listed_from
    if (documented := preset_window(kind, name)) is not None:
        return documented, ContextFrom.PRESET
    return DEFAULT_WINDOW, ContextFrom.DEFAULT


def stated_window(text: str) -> int | None:
    """The window a refusal states, in tokens (None: it states none)."""
    lowered = " ".join(text.lower().split())
    for pattern in _STATED:
        found = re.search(pattern, lowered)
        if found:
            tokens = int(found.group(1).replace(",", ""))
            if tokens >= SMALLEST_WINDOW:
                return tokens
    return None


def memory_bytes() -> int | None:
    """This machine's memory, or None where the platform doesn't say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def ollama_window(trained: int | None, memory: int | None) -> int:
    """The window Sightline asks Ollama to load when a chat sets none: the model's trained
    length, within what this machine's memory holds well (a larger window's cache slows
    every answer, and may not load at all)."""
    fits = OLLAMA_MOST
    if memory is not None:
        fits = next((window for most, window in OLLAMA_WINDOWS if memory < most), OLLAMA_MOST)
    return min(trained, fits) if trained else min(DEFAULT_WINDOW, fits)


def answer_room(window: int, max_tokens: int | None) -> int:
    """The tokens kept free for the answer: the chat's longest answer where it sets one,
    else a quarter of the window, at most 2,048."""
    if max_tokens is not None:
        return min(max_tokens, window // 2)
    return min(window // 4, 2048)


def about(tokens: int) -> str:
    """A window as a person reads it: "about 4,096 tokens"."""
    return f"about {tokens:,} tokens"
