"""A loopback server that speaks LM Studio's REST model lists and its OpenAI-shape chat.

Run it alone with `python -m tests.servers.lmstudio --port 1234` and point a provider
of kind `lmstudio` at the address it prints. `/api/v1/models` (0.4+) and
`/api/v0/models` (0.3.6+) can each be switched off; LM Studio answers a path it
doesn't know with HTTP 200 and an error body ("Returning 200 anyway"), or 404 here.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any, Self

from tests.servers.openai_chat import ChatHandler, ChatModel, FakeOpenAI


@dataclass
class LMModel(ChatModel):
    """A downloaded model: an LLM (that may see) or an embedding model."""

    kind: str = "llm"  # llm | embedding
    display_name: str = ""
    loaded_context: int | None = None  # the context of its loaded instance, if loaded


DEFAULT_MODELS = (
    LMModel(
        "google/gemma-3-4b",
        sees=True,
        tools=False,
        context_length=131072,
        display_name="Gemma 3 4B",
    ),
    LMModel(
        "qwen/qwen3-8b",
        sees=False,
        tools=True,
        context_length=40960,
        display_name="Qwen3 8B",
        loaded_context=4096,
    ),
    LMModel(
        "text-embedding-nomic-embed-text-v1.5",
        tools=False,
        context_length=2048,
        kind="embedding",
        display_name="Nomic Embed Text v1.5",
    ),
)


def v1_entry(model: LMModel) -> dict[str, Any]:
    """One model as GET /api/v1/models lists it."""
    publisher = model.name.split("/")[0] if "/" in model.name else "lmstudio-community"
    entry: dict[str, Any] = {
        "type": model.kind,
        "publisher": publisher,
        "key": model.name,
        "display_name": model.display_name or model.name,
        "architecture": "gemma3" if "gemma" in model.name else "qwen3",
        "quantization": {"name": "Q4_K_M", "bits_per_weight": 4},
        "size_bytes": 3_034_755_901,
        "params_string": "4B",
        "loaded_instances": [],
        "max_context_length": model.context_length,
        "format": "gguf",
    }
    if model.loaded_context is not None:
        entry["loaded_instances"] = [
            {
                "id": model.name,
                "config": {"context_length": model.loaded_context, "eval_batch_size": 512},
            }
        ]
    if model.kind == "llm":
        entry["capabilities"] = {"vision": model.sees, "trained_for_tool_use": model.tools}
        entry["description"] = None
    return entry


def v0_entry(model: LMModel) -> dict[str, Any]:
    """One model as GET /api/v0/models lists it (type vlm for models that see)."""
    kind = "embeddings" if model.kind == "embedding" else ("vlm" if model.sees else "llm")
    return {
        "id": model.name,
        "object": "model",
        "type": kind,
        "publisher": model.name.split("/")[0] if "/" in model.name else "lmstudio-community",
        "arch": "gemma3" if "gemma" in model.name else "qwen3",
        "compatibility_type": "gguf",
        "quantization": "Q4_K_M",
        "state": "loaded" if model.loaded_context else "not-loaded",
        "max_context_length": model.context_length,
    }


class LMStudioHandler(ChatHandler):
    """LM Studio's REST listings on top of the OpenAI-shape routes."""

    @property
    def owner(self) -> FakeLMStudio:
        return self.server.owner

    def not_found(self) -> None:
        """LM Studio's answer to a path it doesn't serve."""
        message = f"Unexpected endpoint or method. ({self.command} {self.path})"
        self.json(self.owner.missing_status, {"error": message})

    def get(self) -> None:
        owner = self.owner
        if self.route_path == "/api/v1/models" and owner.v1:
            self.json(200, {"models": [v1_entry(m) for m in owner.lm_models]})
        elif self.route_path == "/api/v0/models" and owner.v0:
            self.json(200, {"object": "list", "data": [v0_entry(m) for m in owner.lm_models]})
        elif self.route_path in ("/api/v1/models", "/api/v0/models"):
            self.not_found()
        else:
            super().get()


class FakeLMStudio(FakeOpenAI):
    """LM Studio's server on 127.0.0.1: REST model lists and OpenAI-shape chat at /v1."""

    handler_class = LMStudioHandler
    description = "A fake LM Studio on 127.0.0.1."

    def __init__(
        self,
        models: list[LMModel] | None = None,
        *,
        v1: bool = True,
        v0: bool = True,
        missing_status: int = 200,
        api_key: str | None = None,
        port: int = 0,
    ) -> None:
        chosen = (
            list(models) if models is not None else [LMModel(**vars(m)) for m in DEFAULT_MODELS]
        )
        super().__init__(list(chosen), flavour="lmstudio", api_key=api_key, port=port)
        self.lm_models = chosen
        self.v1 = v1
        self.v0 = v0
        self.missing_status = missing_status

    @property
    def address(self) -> str:
        return self.base_url  # the server root: the REST lists are beside /v1

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--no-v1", action="store_true", help="answer /api/v1/models as unknown")

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> Self:
        return cls(v1=not args.no_v1, port=args.port)


if __name__ == "__main__":
    raise SystemExit(FakeLMStudio.main())
