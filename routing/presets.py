"""One table of the providers people connect, and the rules that say which models see.

A preset holds what Sightline knows of a provider before asking it anything: its
address, where its key usually lives, a rule for sight and tools when its model
list says nothing, and its quirks: what the generic wire of its API shape does
differently for it (a header, a request bridge, where else its listing says who
sees), so no wire asks which provider it talks to. The sources behind each rule
are in docs/providers.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

# "all": every model; "none": no model; a pattern: models whose name matches; None: unknown.
Rule = Literal["all", "none"] | re.Pattern[str] | None
WireName = Literal[
    "openai_chat", "responses", "gemini", "anthropic", "lmstudio", "ollama", "acp", "codex"
]
# What a provider's `api` may name: the OpenAI shape's two endpoints ("" for its preset's own).
APIS = ("responses", "chat")


@dataclass(frozen=True)
class Preset:
    """What Sightline knows of one provider kind before asking it anything."""

    kind: str
    label: str
    wire: WireName
    base_url: str
    key_env: str = ""  # the environment variable its key usually lives in; "" for none
    needs_key: bool = True
    sight: Rule = None
    takes_pictures: bool = True  # whether the provider accepts pictures at all
    tools: Rule = None
    local_default: bool = False
    max_picture_side: int = 2048  # longest side sent; providers downscale beyond what they use
    reads_pdfs: bool = False  # takes a PDF itself (a document block), pages as pictures and text
    # Quirks: what differs in how the generic wire talks to it (routing/wires/).
    include_usage: bool = False  # send stream_options.include_usage
    # The answer-length field: OpenAI's own API names it max_completion_tokens (its
    # reasoning models refuse max_tokens); the servers that copy its shape read max_tokens.
    answer_length_key: str = "max_tokens"
    bridge_tool_then_user: bool = False  # Mistral: an assistant turn between tool and user
    api_under_v1: bool = False  # an address without a path serves the API under /v1
    named_by_address: bool = False  # its errors name it by host and port, not by `label`
    headers: tuple[tuple[str, str], ...] = ()  # sent with every request
    sight_from_props: bool = False  # llama.cpp's /props says whether its model sees
    counts_tokens: bool = False  # llama.cpp's /tokenize or llama-cpp-python's count endpoint
    sight_from_language_models: bool = False  # /language-models lists input modalities (xAI)
    start_hint: str = ""  # how to start it, when nothing answers at its address
    # Its OpenAI chat-completions endpoint, when its own API lives elsewhere (Gemini's).
    chat_base_url: str = ""
    pdfs_as_files: bool = False  # its Responses API reads PDFs (input_file): OpenAI's does
    # The chat's settings its API has a field for (routing/parameters.py); Ollama's has all.
    settings: tuple[str, ...] = ("temperature", "max_tokens")
    # Per setting, a name pattern of the models its provider says don't take it.
    refuses: tuple[tuple[str, re.Pattern[str]], ...] = ()


def _names(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# Name patterns of the models that see, per provider (sources in docs/providers.md).
GROQ_SIGHT = _names(r"llama-4|vision|llava")
XAI_SIGHT = _names(r"^(?!.*(?:code|imagine)).*(?:vision|grok-4|grok-[5-9])")
ZAI_SIGHT = _names(r"glm-\d+(?:\.\d+)?v")
MOONSHOT_SIGHT = _names(r"vision|kimi-latest|kimi-k2\.[5-9]|kimi-k[3-9]")
QWEN_SIGHT = _names(r"qwen[\d.]*-vl|qwen-vl|qvq|omni|qwen3\.[5-9]|qwen[4-9]")
# Models that take no temperature, by their provider's word (docs/providers.md): OpenAI's
# reasoning models (the gpt-5 family, the o-series); Claude Opus 4.7 on and Claude 5 on.
OPENAI_NO_TEMPERATURE = _names(r"^(?:gpt-5|o[1-9])(?![0-9])")
ANTHROPIC_NO_TEMPERATURE = _names(
    r"^claude-(?:opus-4-(?:[7-9]|[1-9][0-9])|[a-z]+-(?:[5-9]|[1-9][0-9]))(?![0-9])"
)

_TABLE: tuple[Preset, ...] = (
    Preset(
        "openai",
        "OpenAI",
        "responses",  # its newer models are built around it; api = "chat" for the older shape
        "https://api.openai.com/v1",
        "OPENAI_API_KEY",
        sight="all",
        tools="all",
        include_usage=True,
        answer_length_key="max_completion_tokens",
        pdfs_as_files=True,
        refuses=(("temperature", OPENAI_NO_TEMPERATURE),),
    ),
    Preset(
        "openrouter",
        "OpenRouter",
        "openai_chat",
        "https://openrouter.ai/api/v1",
        "OPENROUTER_API_KEY",
        include_usage=True,  # its listing says sight and tools per model
        headers=(("X-Title", "Sightline"),),  # its app attribution, optional
    ),
    Preset(
        "gemini",
        "Gemini",
        "gemini",  # its own API: thought signatures, tool pictures; api = "chat" for the other
        "https://generativelanguage.googleapis.com/v1beta",
        "GEMINI_API_KEY",
        sight="all",
        tools="all",
        include_usage=True,
        chat_base_url="https://generativelanguage.googleapis.com/v1beta/openai",
    ),
    Preset(
        "mistral",
        "Mistral",
        "openai_chat",
        "https://api.mistral.ai/v1",
        "MISTRAL_API_KEY",
        # Mistral refuses unknown request fields, and sends usage unasked.
        include_usage=False,
        bridge_tool_then_user=True,
    ),
    Preset(
        "groq",
        "Groq",
        "openai_chat",
        "https://api.groq.com/openai/v1",
        "GROQ_API_KEY",
        sight=GROQ_SIGHT,
        include_usage=True,
    ),
    Preset(
        "xai",
        "xAI",
        "openai_chat",
        "https://api.x.ai/v1",
        "XAI_API_KEY",
        sight=XAI_SIGHT,
        tools="all",
        include_usage=True,
        sight_from_language_models=True,
    ),
    Preset(
        "deepseek",
        "DeepSeek",
        "openai_chat",
        "https://api.deepseek.com",
        "DEEPSEEK_API_KEY",
        sight="none",
        takes_pictures=False,
        tools="all",
        include_usage=True,
    ),
    Preset(
        "cerebras",
        "Cerebras",
        "openai_chat",
        "https://api.cerebras.ai/v1",
        "CEREBRAS_API_KEY",
        sight="none",
        takes_pictures=False,
    ),
    Preset(
        "zai",
        "Z.ai",
        "openai_chat",
        "https://api.z.ai/api/paas/v4",
        "ZAI_API_KEY",
        sight=ZAI_SIGHT,
        tools="all",
    ),
    Preset(
        "moonshot",
        "Kimi (Moonshot)",
        "openai_chat",
        "https://api.moonshot.ai/v1",
        "MOONSHOT_API_KEY",
        sight=MOONSHOT_SIGHT,
        tools="all",
    ),
    Preset(
        "qwen",
        "Qwen (DashScope)",
        "openai_chat",
        "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
        "DASHSCOPE_API_KEY",
        sight=QWEN_SIGHT,
        include_usage=True,
    ),
    Preset(
        "minimax",
        "MiniMax",
        "openai_chat",
        "https://api.minimax.io/v1",
        "MINIMAX_API_KEY",
        sight="none",
        takes_pictures=False,
        tools="all",
    ),
    Preset(
        "custom",
        "OpenAI-compatible server",
        "openai_chat",
        "http://127.0.0.1:8080/v1",  # llama.cpp's llama-server default
        needs_key=False,
        include_usage=True,
        local_default=True,
        # llama.cpp, vLLM and the like: given as http://host:port, named by it.
        api_under_v1=True,
        named_by_address=True,
        sight_from_props=True,
        counts_tokens=True,
    ),
    Preset(
        "lmstudio",
        "LM Studio",
        "lmstudio",
        "http://127.0.0.1:1234",
        needs_key=False,
        include_usage=True,
        local_default=True,
        start_hint="Start LM Studio's server (Developer → Start Server, or `lms server start`).",
    ),
    Preset(
        "anthropic",
        "Anthropic",
        "anthropic",
        "https://api.anthropic.com",
        "ANTHROPIC_API_KEY",
        sight="all",
        tools="all",
        max_picture_side=1568,  # Claude scales anything longer down to this
        reads_pdfs=True,
        refuses=(("temperature", ANTHROPIC_NO_TEMPERATURE),),
    ),
    Preset(
        "ollama",
        "Ollama",
        "ollama",
        "http://127.0.0.1:11434",
        needs_key=False,
        local_default=True,
        settings=("temperature", "max_tokens", "context_length"),  # num_ctx
        start_hint=(
            "Is Ollama running? Start it with `ollama serve`, or set OLLAMA_HOST or the "
            "provider's base_url."
        ),
    ),
)

PRESETS: dict[str, Preset] = {p.kind: p for p in _TABLE}
KINDS: tuple[str, ...] = tuple(PRESETS)  # the kinds spoken to through a wire (HTTP)

# An agent: a program that speaks the Agent Client Protocol on its stdin and stdout
# (app/turn/acp/). No wire and no address: it is started from its `command`, runs its
# own tool loop and says itself whether it takes pictures (`promptCapabilities.image`).
# Kept apart from PRESETS, which are the wires' (the catalogue lists only those).
AGENT_PRESET = Preset("acp", "Agent (ACP)", "acp", "", needs_key=False, tools="all")
# Codex's app server (app/turn/codex/): a program too, with its own tool loop; its model
# comes from Codex's own sign-in or a model provider of its config (`model_provider`).
CODEX_PRESET = Preset("codex", "Codex", "codex", "", needs_key=False, tools="all")
_AGENT_PRESETS = {p.kind: p for p in (AGENT_PRESET, CODEX_PRESET)}
AGENT_KINDS: tuple[str, ...] = tuple(_AGENT_PRESETS)
ALL_KINDS: tuple[str, ...] = (*KINDS, *AGENT_KINDS)  # every kind a config may name


def preset_for(kind: str) -> Preset:
    """The preset of a provider kind; ValueError naming the kinds there are."""
    try:
        return PRESETS[kind] if kind in PRESETS else _AGENT_PRESETS[kind]
    except KeyError:
        raise ValueError(
            f"no provider kind {kind!r}; the kinds are: {', '.join(ALL_KINDS)}"
        ) from None


def api_problem(preset: Preset, api: str) -> str:
    """Why a provider of this preset can't be spoken to through `api` ("" when it can)."""
    if api not in ("", *APIS):
        return f'api must be "responses" or "chat", not {api!r}'
    if not api or preset.wire in ("openai_chat", "responses"):
        return ""  # every OpenAI-shape server may serve either endpoint
    if api == "chat" and preset.wire in ("gemini", "lmstudio"):
        return ""
    if preset.wire == "gemini":
        return (
            'Gemini has no Responses API: leave api out for its own API, or set api = "chat" '
            "for its OpenAI-compatible endpoint"
        )
    return f"{preset.label} has one API of its own: leave api out"


def wire_for(preset: Preset, api: str = "") -> WireName:
    """The wire a provider of this preset speaks through: its preset's, or the one `api`
    names; ValueError (from `api_problem`) when the preset has no such API."""
    if problem := api_problem(preset, api):
        raise ValueError(problem)
    if not api:
        return preset.wire
    if api == "responses":
        return "responses"
    return "lmstudio" if preset.wire == "lmstudio" else "openai_chat"


def base_url_for(preset: Preset, api: str = "") -> str:
    """The address a provider of this preset has when its config gives none."""
    return preset.chat_base_url if api == "chat" and preset.chat_base_url else preset.base_url


def _apply(rule: Rule, model_name: str) -> bool | None:
    if rule == "all":
        return True
    if rule == "none":
        return False
    if isinstance(rule, re.Pattern):
        return rule.search(model_name) is not None
    return None


def sees_for(preset: Preset, model_name: str, listed: bool | None) -> bool | None:
    """Whether a model sees: its provider's listing when it says, else the preset's rule."""
    if listed is not None:
        return listed
    return _apply(preset.sight, model_name)


def tools_for(preset: Preset, model_name: str, listed: bool | None) -> bool | None:
    """Whether a model uses tools: its provider's listing when it says, else the preset's rule."""
    if listed is not None:
        return listed
    return _apply(preset.tools, model_name)


def refuses_for(preset: Preset, model_name: str) -> tuple[str, ...]:
    """The chat's settings the provider says this model doesn't take."""
    return tuple(setting for setting, names in preset.refuses if names.search(model_name))


def counts_as_seeing(preset: Preset, sees: bool | None) -> bool:
    """Whether to send pictures: an unknown model counts as seeing where its provider takes them."""
    return preset.takes_pictures if sees is None else sees
