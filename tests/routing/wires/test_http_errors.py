"""The failures every HTTP wire meets, named from the preset, never by asking which provider."""

from __future__ import annotations

import httpx
import pytest

from routing.errors import CannotConnect, KeyProblem, StreamCut, TimedOut
from routing.models import ProviderConfig
from routing.presets import preset_for
from routing.wires.http_errors import cut_off, missing_key, translate_transport, who

REFUSED = httpx.ConnectError("refused", request=httpx.Request("POST", "http://127.0.0.1:9/x"))


def test_transport_failures() -> None:
    """Refused or unanswered: CannotConnect; slow: TimedOut; cut: StreamCut (a ServerError)."""
    provider = ProviderConfig(id="p", kind="custom", base_url="http://127.0.0.1:9/v1")
    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    cases = [
        (httpx.ConnectError("refused", request=request), CannotConnect),
        (httpx.ConnectTimeout("no answer", request=request), CannotConnect),
        (httpx.ReadTimeout("slow", request=request), TimedOut),
        (httpx.RemoteProtocolError("incomplete chunked read", request=request), StreamCut),
        (httpx.UnsupportedProtocol("ftp", request=request), CannotConnect),
    ]
    for exc, kind in cases:
        error = translate_transport(provider, exc, preset=preset_for("custom"))
        assert type(error) is kind, exc
        assert error.provider_id == "p" and type(exc).__name__ in error.detail


@pytest.mark.parametrize(
    ("kind", "hint"),
    [
        ("ollama", "Start it with `ollama serve`, or set OLLAMA_HOST"),
        ("lmstudio", "Start LM Studio's server (Developer → Start Server"),
        ("custom", "Start the server, or fix the provider's base URL."),
    ],
)
def test_nothing_answering_says_how_to_start_it(kind: str, hint: str) -> None:
    """The preset's start hint, else the general one for a server on this computer."""
    provider = ProviderConfig(kind, kind, "http://127.0.0.1:9")
    error = translate_transport(provider, REFUSED, preset=preset_for(kind))
    assert error.message.startswith("Nothing answered at 127.0.0.1:9. ")
    assert hint in error.message


def test_a_server_of_your_own_is_named_by_its_address_others_by_their_label() -> None:
    mine = ProviderConfig("m", "custom", "http://user:pw@127.0.0.1:8080/v1")
    assert who(mine, preset_for("custom")) == "The server at 127.0.0.1:8080"
    assert who(mine, preset_for("mistral")) == "Mistral"
    assert who(mine, None) == "The server at 127.0.0.1:8080"
    assert "the server at 127.0.0.1:8080 dropped" in cut_off(mine, preset_for("custom"), "").message


def test_a_missing_key_names_its_variable() -> None:
    error = missing_key(ProviderConfig("g", "groq", ""), preset_for("groq"))
    assert isinstance(error, KeyProblem)
    assert error.message == (
        "Groq needs an API key: set GROQ_API_KEY, or add it in Settings → Providers."
    )
