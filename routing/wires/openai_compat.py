"""What every OpenAI-compatible API shares, whichever of its endpoints a wire chats through.

The address (a server of your own gets /v1), the key as a bearer token, the
/models listing with what each entry says of sight, tools and context (and where
a preset says its provider tells more: llama.cpp's /props, xAI's
/language-models), and the error words (routing/wires/openai_errors.py). The
chat-completions wire (openai_chat.py) builds on it; so would a Responses wire.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from routing.context_window import ContextFrom
from routing.errors import MalformedResponse, ModelNotFound, ProviderError
from routing.models import ModelInfo, ProviderConfig
from routing.presets import PRESETS, Preset
from routing.wires.http import ErrorAnswer, HttpWire
from routing.wires.http_errors import looks_like_html
from routing.wires.openai_errors import translate_status

# Listed by /models but not chat models; the picker would only mislead with them.
_NOT_CHAT = (
    "embed",
    "whisper",
    "tts",
    "dall-e",
    "moderation",
    "transcribe",
    "realtime",
    "sora",
    "gpt-image",
    "imagine",
    "davinci",
    "babbage",
)
_CONTEXT_KEYS = ("context_length", "context_window", "max_context_length", "max_model_len")


def compat_base_url(preset: Preset, configured: str) -> str:
    """The base URL requests go to: the configured one, else the preset's, without a final /."""
    url = (configured or preset.base_url).strip().rstrip("/")
    # A server of your own given as http://host:port serves the API under /v1.
    if preset.api_under_v1 and urlsplit(url).path in ("", "/"):
        url += "/v1"
    return url


def _entries(listing: Any) -> list[dict[str, Any]]:
    if isinstance(listing, dict):
        listing = listing.get("data", listing.get("models"))
    if not isinstance(listing, list):
        raise MalformedResponse("no model list")
    return [e for e in listing if isinstance(e, dict)]


def _listed_sees(entry: Mapping[str, Any]) -> bool | None:
    arch = entry.get("architecture")
    modalities = arch.get("input_modalities") if isinstance(arch, dict) else None
    modalities = entry.get("input_modalities", modalities)  # xAI language-models
    if isinstance(modalities, list):
        return "image" in modalities
    caps = entry.get("capabilities")
    if isinstance(caps, dict) and isinstance(caps.get("vision"), bool):
        return bool(caps["vision"])  # Mistral
    if isinstance(entry.get("supports_image_in"), bool):
        return bool(entry["supports_image_in"])  # Moonshot
    return None


def _listed_tools(entry: Mapping[str, Any]) -> bool | None:
    params = entry.get("supported_parameters")
    if isinstance(params, list):
        return "tools" in params  # OpenRouter
    caps = entry.get("capabilities")
    if isinstance(caps, dict) and isinstance(caps.get("function_calling"), bool):
        return bool(caps["function_calling"])  # Mistral
    return None


def _context(entry: Mapping[str, Any]) -> int | None:
    top = entry.get("top_provider")
    candidates = [entry.get(k) for k in _CONTEXT_KEYS]
    candidates.append(top.get("context_length") if isinstance(top, dict) else None)
    return next((v for v in candidates if isinstance(v, int) and v > 0), None)


def _is_chat(entry: Mapping[str, Any], name: str) -> bool:
    caps = entry.get("capabilities")
    if isinstance(caps, dict) and caps.get("completion_chat") is False:
        return False  # Mistral's embedding and OCR models
    return not any(word in name.lower() for word in _NOT_CHAT)


class OpenAICompatWire(HttpWire):
    """An OpenAI-compatible API for one provider: address, key, model list, error words."""

    # Which of llama.cpp's count endpoints answers: "" not asked yet, "tokenize", "extras",
    # or "none" (this server counts nothing).
    _counter: str = ""

    @classmethod
    def preset_of(cls, provider: ProviderConfig) -> Preset:
        """The provider's preset; a kind without one (vllm, llamacpp) is a server of your own."""
        return PRESETS.get(provider.kind, PRESETS["custom"])

    def locate(self, configured: str) -> str:
        """The configured address, else the preset's; /v1 added where the preset says."""
        return compat_base_url(self.preset, configured)

    def headers(self) -> dict[str, str]:
        """JSON answers, the key as a bearer token, and the preset's own headers."""
        headers = {"Accept": "application/json"}
        if self.provider.api_key:
            headers["Authorization"] = f"Bearer {self.provider.api_key}"
        return headers | dict(self.preset.headers)

    def classify(self, answer: ErrorAnswer) -> ProviderError:
        """The shape's words first, then the status (routing/wires/openai_errors.py)."""
        return translate_status(
            self.located,
            answer.status,
            answer.text,
            answer.headers,
            had_pictures=answer.had_pictures,
            preset=self.preset,
            model=answer.model,
        )

    def not_json(self, text: str) -> ProviderError:
        """A captive portal's page says so; anything else is not the API."""
        if looks_like_html(text):
            return self.classify(ErrorAnswer(200, text))
        return MalformedResponse(
            f"The answer from {self.server} was not JSON. Check that the provider's base URL "
            "points at an OpenAI-compatible API.",
            provider_id=self.provider.id,
            detail=text[:500],
        )

    def names_help(self, error: ModelNotFound) -> bool:
        """Not when the data policy, not the name, is what excludes the model (OpenRouter)."""
        return "data policy" not in error.detail.lower()

    async def model_names(self) -> tuple[str, ...]:
        """The ids /models lists, or () when they can't be had quickly."""
        listing = await self.quietly(f"{self.base_url}/models")
        try:
            return tuple(str(e.get("id")) for e in _entries(listing) if e.get("id"))
        except MalformedResponse:
            return ()

    # -- the model list ---------------------------------------------------------------

    async def read_models(self) -> list[ModelInfo]:
        """Every chat model /models lists, with sight and tools where known."""
        entries = self._entry_list(await self.read_json(f"{self.base_url}/models"))
        extra: dict[str, bool] = {}
        server_sees: bool | None = None
        server_window: int | None = None
        if self.preset.sight_from_props:
            server_sees, server_window = await self._props()
        if self.preset.sight_from_language_models:
            extra = await self._language_models()
        infos = self.infos(entries, lambda name: extra.get(name, server_sees))
        if server_window is None:
            return infos
        # llama.cpp serves one model with one window: its running n_ctx, not the trained one.
        return [
            replace(m, context_length=server_window, context_from=ContextFrom.SERVER) for m in infos
        ]

    def _entry_list(self, listing: Any) -> list[dict[str, Any]]:
        try:
            return _entries(listing)
        except MalformedResponse:
            raise MalformedResponse(
                f"The model list from {self.server} was not in the OpenAI format. Check that "
                "the provider's base URL points at an OpenAI-compatible API.",
                provider_id=self.provider.id,
                detail=json.dumps(listing)[:500],
            ) from None

    def infos(
        self, entries: list[dict[str, Any]], fallback: Callable[[str], bool | None]
    ) -> list[ModelInfo]:
        """The chat models among listing entries; `fallback` says sight where an entry doesn't."""
        infos: dict[str, ModelInfo] = {}
        for entry in entries:
            name = entry.get("id") or entry.get("name")
            if not isinstance(name, str) or not name or name in infos:
                continue
            if not _is_chat(entry, name):
                continue
            listed = _listed_sees(entry)
            label = entry.get("name") if entry.get("name") != name else ""
            infos[name] = self.info(
                name,
                listed if listed is not None else fallback(name),
                _listed_tools(entry),
                context_length=_context(entry),
                label=label if isinstance(label, str) else "",
            )
        return list(infos.values())

    def info(self, name: str, sees: bool | None, tools: bool | None, **extra: Any) -> ModelInfo:
        """One listed model, as the listing says (the catalogue applies the preset's rule)."""
        return ModelInfo(
            provider_id=self.provider.id,
            name=name,
            sees=sees,
            tools=tools,
            local=self._local,
            **extra,
        )

    async def _props(self) -> tuple[bool | None, int | None]:
        """llama.cpp's /props says whether its model sees (a projector is loaded) and the
        window it runs with (`default_generation_settings.n_ctx`)."""
        root = self.base_url.removesuffix("/v1")
        props = await self.quietly(f"{root}/props", what="the server's properties")
        props = props if isinstance(props, dict) else {}
        modalities = props.get("modalities")
        vision = modalities.get("vision") if isinstance(modalities, dict) else None
        settings = props.get("default_generation_settings")
        window = settings.get("n_ctx") if isinstance(settings, dict) else None
        return (
            vision if isinstance(vision, bool) else None,
            window
            if isinstance(window, int) and not isinstance(window, bool) and window > 0
            else None,
        )

    async def count_tokens(self, text: str, model: str) -> int | None:
        """The server's own count of some words: llama.cpp's POST /tokenize, else
        llama-cpp-python's POST /extras/tokenize/count; None where it has neither (the one
        that answered is asked from then on)."""
        if not self.preset.counts_tokens or self._counter == "none":
            return None
        root = self.base_url.removesuffix("/v1")
        if self._counter in ("", "tokenize"):
            found = await self.quietly(
                f"{root}/tokenize", method="POST", json={"content": text}, what="a token count"
            )
            tokens = found.get("tokens") if isinstance(found, dict) else None
            if isinstance(tokens, list):
                self._counter = "tokenize"
                return len(tokens)
        found = await self.quietly(
            f"{root}/extras/tokenize/count",
            method="POST",
            json={"input": text, "model": model},
            what="a token count",
        )
        count = found.get("count") if isinstance(found, dict) else None
        if isinstance(count, int) and not isinstance(count, bool) and count >= 0:
            self._counter = "extras"
            return count
        self._counter = "none" if self._counter == "" else self._counter
        return None

    async def _language_models(self) -> dict[str, bool]:
        """xAI's /language-models lists input_modalities per model (and its aliases)."""
        listing = await self.quietly(f"{self.base_url}/language-models")
        out: dict[str, bool] = {}
        for entry in listing.get("models", []) if isinstance(listing, dict) else []:
            sees = _listed_sees(entry) if isinstance(entry, dict) else None
            if sees is None:
                continue
            for name in [entry.get("id"), *(entry.get("aliases") or [])]:
                if isinstance(name, str):
                    out[name] = sees
        return out
