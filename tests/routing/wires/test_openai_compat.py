"""What the OpenAI-compatible APIs share: the address, the key and the preset's headers.

The model list, per flavour, is tested through the chat wire in test_openai_chat.py.
"""

from __future__ import annotations

import pytest

from routing.models import ProviderConfig
from routing.presets import preset_for
from routing.wires.openai_chat import OpenAIChatWire
from routing.wires.openai_compat import compat_base_url


@pytest.mark.parametrize(
    ("kind", "configured", "url"),
    [
        ("custom", "http://127.0.0.1:8080", "http://127.0.0.1:8080/v1"),
        ("custom", "http://127.0.0.1:8080/", "http://127.0.0.1:8080/v1"),
        ("custom", "http://box.lan:8000/api/", "http://box.lan:8000/api"),
        ("vllm", "http://127.0.0.1:8000", "http://127.0.0.1:8000/v1"),  # no preset: your own
        ("openai", "https://proxy.example", "https://proxy.example"),
        ("openai", "", "https://api.openai.com/v1"),
    ],
)
async def test_the_address_gets_v1_only_where_the_preset_says(
    kind: str, configured: str, url: str
) -> None:
    wire = OpenAIChatWire(ProviderConfig(kind, kind, configured))
    await wire.aclose()
    assert wire.base_url == url
    assert compat_base_url(wire.preset, configured) == url


@pytest.mark.parametrize(
    ("kind", "key", "headers"),
    [
        ("openrouter", "sk-or", {"Authorization": "Bearer sk-or", "X-Title": "Sightline"}),
        ("openai", "sk-1", {"Authorization": "Bearer sk-1"}),
        ("custom", "", {}),
    ],
)
async def test_the_key_as_a_bearer_token_and_the_presets_own_headers(
    kind: str, key: str, headers: dict[str, str]
) -> None:
    wire = OpenAIChatWire(ProviderConfig(kind, kind, "", api_key=key))
    await wire.aclose()
    assert wire.headers() == {"Accept": "application/json", **headers}
    assert dict(preset_for(kind).headers).items() <= wire.headers().items()
