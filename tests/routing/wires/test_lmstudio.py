"""The LM Studio wire against a real loopback LM Studio: REST listings, fallbacks, chat."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from contextlib import aclosing

import pytest

from routing.errors import CannotConnect, PicturesRefused, ProviderError
from routing.models import ProviderConfig
from routing.transcript import user_message
from routing.wires.base import ChatRequest, Done, TextDelta
from routing.wires.lmstudio import LMStudioWire
from tests.pictures import make_picture
from tests.servers.fixtures import served
from tests.servers.lmstudio import FakeLMStudio, LMModel


def wire_for(url: str) -> LMStudioWire:
    """A wire to LM Studio at `url`."""
    return LMStudioWire(ProviderConfig(id="lmstudio", kind="lmstudio", base_url=url), timeout=5)


server = served(FakeLMStudio, "server")  # with a seeing, a blind and an embedding model


@pytest.fixture
async def wire(server: FakeLMStudio) -> AsyncIterator[LMStudioWire]:
    """A wire to the loopback LM Studio at its root address."""
    async with aclosing(wire_for(server.base_url)) as wire:
        yield wire


SEEN = [
    ("google/gemma-3-4b", True, False, 131072, "Gemma 3 4B"),
    ("qwen/qwen3-8b", False, True, 4096, "Qwen3 8B"),
]


async def test_v1_listing_says_sight_tools_and_loaded_context(
    wire: LMStudioWire, server: FakeLMStudio
) -> None:
    """capabilities.vision and trained_for_tool_use; the loaded context; no embeddings."""
    models = await wire.list_models()
    assert [(m.name, m.sees, m.tools, m.context_length, m.label) for m in models] == SEEN
    assert all(m.local and m.provider_id == "lmstudio" for m in models)
    assert server.paths() == ["GET /api/v1/models"]


@pytest.mark.parametrize("missing_status", [200, 404])
async def test_v0_fallback(missing_status: int) -> None:
    """Without /api/v1 (a 404, or LM Studio's '200 anyway'), /api/v0's vlm type says sight."""
    with FakeLMStudio(v1=False, missing_status=missing_status) as server:
        wire = wire_for(server.base_url)
        models = await wire.list_models()
        await wire.aclose()
    assert [(m.name, m.sees, m.tools, m.context_length) for m in models] == [
        ("google/gemma-3-4b", True, None, 131072),
        ("qwen/qwen3-8b", False, None, 40960),
    ]
    assert server.paths() == ["GET /api/v1/models", "GET /api/v0/models"]


async def test_oldest_lm_studio_lists_names_only() -> None:
    """Neither REST listing: the OpenAI-shape /v1/models, sight unknown."""
    with FakeLMStudio(v1=False, v0=False, missing_status=404) as server:
        wire = wire_for(server.base_url)
        models = await wire.list_models()
        await wire.aclose()
    assert [(m.name, m.sees) for m in models] == [
        ("google/gemma-3-4b", None),
        ("qwen/qwen3-8b", None),
    ]
    assert server.paths()[-1] == "GET /v1/models"


async def test_chat_goes_to_v1_even_when_configured_with_v1(server: FakeLMStudio) -> None:
    """People often write the /v1 address; the root is found either way."""
    wire = wire_for(server.base_url + "/v1/")
    events = [e async for e in wire.stream(ChatRequest("qwen/qwen3-8b", (user_message("hi"),)))]
    await wire.aclose()
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "You said: hi"
    assert events[-1] == Done("stop")
    assert server.paths() == ["POST /v1/chat/completions"]
    assert server.chat_requests()[0]["stream_options"] == {"include_usage": True}
    assert "Authorization" not in server.headers[0]


async def test_picture_to_a_blind_model_is_refused_in_lm_studios_words(wire: LMStudioWire) -> None:
    """'Model does not support images' is a picture refusal."""
    request = ChatRequest("qwen/qwen3-8b", (user_message("look", (make_picture("green"),)),))
    with pytest.raises(PicturesRefused) as caught:
        async for _ in wire.stream(request):
            pass
    assert "Model does not support images" in caught.value.detail


async def test_seeing_model_gets_the_picture(wire: LMStudioWire, server: FakeLMStudio) -> None:
    """A vision model's request carries the picture as an image_url part."""
    request = ChatRequest("google/gemma-3-4b", (user_message("look", (make_picture("green"),)),))
    events = [e async for e in wire.stream(request)]
    assert "(I see 1 pictures)" in "".join(e.text for e in events if isinstance(e, TextDelta))
    assert server.chat_requests()[0]["messages"][0]["content"][1]["type"] == "image_url"


async def test_lm_studio_not_running() -> None:
    """Nothing at the address: CannotConnect says how to start LM Studio's server."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    wire = wire_for(f"http://127.0.0.1:{port}")
    with pytest.raises(CannotConnect) as caught:
        await wire.list_models()
    await wire.aclose()
    assert "lms server start" in caught.value.message


async def test_custom_models() -> None:
    """A key, when set, goes as a bearer token; embeddings never reach the picker."""
    models = [LMModel("nomic-embed", kind="embedding"), LMModel("mistral-7b", sees=False)]
    with FakeLMStudio(models=models, api_key="lm-token") as server:
        provider = ProviderConfig(
            id="lms", kind="lmstudio", base_url=server.base_url, api_key="lm-token"
        )
        wire = LMStudioWire(provider)
        listed = await wire.list_models()
        await wire.aclose()
    assert [m.name for m in listed] == ["mistral-7b"]
    assert server.headers[0]["Authorization"] == "Bearer lm-token"


async def test_wrong_token_is_a_provider_error() -> None:
    """A token LM Studio refuses fails the listing rather than falling back quietly."""
    with FakeLMStudio(api_key="right") as server:
        provider = ProviderConfig(
            id="lms", kind="lmstudio", base_url=server.base_url, api_key="wrong"
        )
        wire = LMStudioWire(provider)
        with pytest.raises(ProviderError) as caught:
            await wire.list_models()
        await wire.aclose()
    assert caught.value.kind == "auth"
