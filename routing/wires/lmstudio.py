"""The LM Studio wire: its own REST model list (which says who sees), chat in the OpenAI shape.

The configured address is the server root (http://127.0.0.1:1234). Models come
from /api/v1/models (LM Studio 0.4+), else /api/v0/models (0.3.6+), else the
OpenAI-shape /v1/models, which says nothing of sight.
"""

from __future__ import annotations

from typing import Any

from routing.context_window import ContextFrom
from routing.errors import MalformedResponse
from routing.models import ModelInfo, ProviderConfig
from routing.presets import Preset, preset_for
from routing.wires.openai_chat import OpenAIChatWire


def lmstudio_root(configured: str, preset: Preset) -> str:
    """The server root: the configured address without a trailing /v1 (people often add it)."""
    return (configured or preset.base_url).strip().rstrip("/").removesuffix("/v1")


def _loaded_context(entry: dict[str, Any]) -> int | None:
    """The context a loaded instance runs with (smaller than the model's maximum)."""
    for instance in entry.get("loaded_instances") or []:
        config = instance.get("config") if isinstance(instance, dict) else None
        length = config.get("context_length") if isinstance(config, dict) else None
        if isinstance(length, int) and length > 0:
            return length
    return None


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and value > 0 else None


class LMStudioWire(OpenAIChatWire):
    """LM Studio: models from its REST API, chat over its OpenAI-compatible /v1."""

    @classmethod
    def preset_of(cls, provider: ProviderConfig) -> Preset:
        """LM Studio's preset, whatever the provider's kind."""
        return preset_for("lmstudio")

    def locate(self, configured: str) -> str:
        """The OpenAI-compatible half, for chat: the server root's /v1."""
        return f"{lmstudio_root(configured, self.preset)}/v1"

    @property
    def root(self) -> str:
        """The server root, where the REST API is."""
        return self.base_url.removesuffix("/v1")

    async def read_models(self) -> list[ModelInfo]:
        """Every LLM LM Studio has (not embeddings), with sight from its own capabilities."""
        v1 = await self._rest_json("/api/v1/models")
        if isinstance(v1, dict) and isinstance(v1.get("models"), list):
            return self._from_v1(v1["models"])
        v0 = await self._rest_json("/api/v0/models")
        if isinstance(v0, dict) and isinstance(v0.get("data"), list):
            return self._from_v0(v0["data"])
        return await super().read_models()  # older than 0.3.6: names only

    async def _rest_json(self, path: str) -> Any:
        """The JSON of a REST listing, or None when this LM Studio has no such endpoint."""
        answer = await self.read(f"{self.root}{path}")
        if answer.status_code in (400, 404, 405):
            return None
        try:
            return self.json_of(answer)
        except MalformedResponse:
            return None  # some versions answer an unknown path with a non-JSON page

    def _from_v1(self, entries: list[Any]) -> list[ModelInfo]:
        infos = []
        for entry in entries:
            if not isinstance(entry, dict) or entry.get("type") != "llm":
                continue  # embedding models can't chat
            name = entry.get("key")
            if not isinstance(name, str) or not name:
                continue
            caps = entry.get("capabilities")
            caps = caps if isinstance(caps, dict) else {}
            vision, tools = caps.get("vision"), caps.get("trained_for_tool_use")
            label = entry.get("display_name")
            loaded = _loaded_context(entry)  # the server's running window, over the maximum
            infos.append(
                self.info(
                    name,
                    vision if isinstance(vision, bool) else None,
                    tools if isinstance(tools, bool) else None,
                    context_length=loaded or _positive(entry.get("max_context_length")),
                    context_from=ContextFrom.SERVER if loaded else ContextFrom.LISTING,
                    label=label if isinstance(label, str) else "",
                )
            )
        return infos

    def _from_v0(self, entries: list[Any]) -> list[ModelInfo]:
        infos = []
        for entry in entries:
            kind = entry.get("type") if isinstance(entry, dict) else None
            name = entry.get("id") if isinstance(entry, dict) else None
            if kind not in ("llm", "vlm") or not isinstance(name, str) or not name:
                continue
            caps = entry.get("capabilities")
            tools = "tool_use" in caps if isinstance(caps, list) else None
            infos.append(
                self.info(
                    name,
                    kind == "vlm",
                    tools,
                    context_length=_positive(entry.get("max_context_length")),
                )
            )
        return infos
