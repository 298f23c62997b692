"""A request's tool choice as each wire sends it to its loopback server, in its API's own
form: OpenAI chat's and the Responses API's `tool_choice`, Anthropic's, Gemini's
`toolConfig.functionCallingConfig`; Ollama's API has none, so its wire offers only the
tool named (and none for "none")."""

from __future__ import annotations

from contextlib import aclosing
from typing import Any

import pytest

from routing.models import ProviderConfig
from routing.transcript import user_message
from routing.wires.anthropic import AnthropicWire
from routing.wires.base import ChatRequest, ToolChoice, ToolSpec, UnforcedTools
from routing.wires.gemini import GeminiWire
from routing.wires.ollama import OllamaWire
from routing.wires.openai_chat import OpenAIChatWire
from routing.wires.responses import ResponsesWire
from tests.events import collect
from tests.servers.anthropic import DEFAULT_KEY as ANTHROPIC_KEY
from tests.servers.anthropic import FakeAnthropic
from tests.servers.gemini import DEFAULT_KEY as GEMINI_KEY
from tests.servers.gemini import FakeGemini
from tests.servers.ollama import FakeOllama
from tests.servers.openai_chat import FakeOpenAI
from tests.servers.openai_responses import FakeResponses

WEATHER = ToolSpec("get_weather", "The weather in a city now.")
TIME = ToolSpec("get_time", "The time in a city now.")
CHOICES = {
    "auto": ToolChoice("auto"),
    "none": ToolChoice("none"),
    "required": ToolChoice("required"),
    "named": ToolChoice.named("get_time"),
}


def ask(model: str, choice: ToolChoice | None, tools: tuple[ToolSpec, ...]) -> ChatRequest:
    return ChatRequest(model, (user_message("Weather in Oslo?"),), tools=tools, tool_choice=choice)


@pytest.mark.parametrize(
    ("choice", "sent"),
    [
        ("auto", "auto"),
        ("none", "none"),
        ("required", "required"),
        ("named", {"type": "function", "function": {"name": "get_time"}}),
    ],
)
async def test_openai_chat_sends_tool_choice(choice: str, sent: Any) -> None:
    with FakeOpenAI() as server:
        provider = ProviderConfig("openai", "openai", server.url, api_key="sk-test")
        async with aclosing(OpenAIChatWire(provider, retry_base_delay=0.01)) as wire:
            await collect(wire.stream(ask("gpt-4o-mini", CHOICES[choice], (WEATHER, TIME))))
        assert server.chat_requests()[0]["tool_choice"] == sent


@pytest.mark.parametrize(
    ("choice", "sent"),
    [
        ("none", "none"),
        ("required", "required"),
        ("named", {"type": "function", "name": "get_time"}),  # flat, as its tools are
    ],
)
async def test_responses_sends_tool_choice(choice: str, sent: Any) -> None:
    with FakeResponses(api_key="sk-test") as server:
        provider = ProviderConfig("oa", "openai", server.url, api_key="sk-test")
        async with aclosing(ResponsesWire(provider, retry_base_delay=0.01)) as wire:
            await collect(wire.stream(ask("gpt-5-mini", CHOICES[choice], (WEATHER, TIME))))
        assert server.chat_requests()[0]["tool_choice"] == sent


@pytest.mark.parametrize(
    ("choice", "sent"),
    [
        ("auto", {"type": "auto"}),
        ("none", {"type": "none"}),
        ("required", {"type": "any"}),
        ("named", {"type": "tool", "name": "get_time"}),
    ],
)
async def test_anthropic_sends_tool_choice(choice: str, sent: Any) -> None:
    with FakeAnthropic() as server:
        provider = ProviderConfig("anthropic", "anthropic", server.base_url, api_key=ANTHROPIC_KEY)
        async with aclosing(AnthropicWire(provider, retry_base_delay=0.0)) as wire:
            model = "claude-sonnet-4-5-20250929"
            await collect(wire.stream(ask(model, CHOICES[choice], (WEATHER, TIME))))
        assert server.message_requests()[0].body["tool_choice"] == sent


@pytest.mark.parametrize(
    ("choice", "sent"),
    [
        ("auto", {"mode": "AUTO"}),
        ("none", {"mode": "NONE"}),
        ("required", {"mode": "ANY"}),
        ("named", {"mode": "ANY", "allowedFunctionNames": ["get_time"]}),
    ],
)
async def test_gemini_sends_function_calling_config(choice: str, sent: Any) -> None:
    with FakeGemini() as server:
        provider = ProviderConfig("g", "gemini", server.base_url, api_key=GEMINI_KEY)
        async with aclosing(GeminiWire(provider, retry_base_delay=0.01)) as wire:
            await collect(wire.stream(ask("gemini-2.5-flash", CHOICES[choice], (WEATHER, TIME))))
        body = server.chat_requests()[0]
        assert body["toolConfig"] == {"functionCallingConfig": sent}


async def test_no_choice_is_sent_without_tools_or_for_a_tool_not_offered() -> None:
    """Every API refuses a choice among no tools, or of a tool it wasn't given."""
    with FakeOpenAI() as server:
        provider = ProviderConfig("openai", "openai", server.url, api_key="sk-test")
        async with aclosing(OpenAIChatWire(provider, retry_base_delay=0.01)) as wire:
            await collect(wire.stream(ask("gpt-4o-mini", ToolChoice("required"), ())))
            await collect(wire.stream(ask("gpt-4o-mini", CHOICES["named"], (WEATHER,))))
            await collect(wire.stream(ask("gpt-4o-mini", None, (WEATHER,))))
        assert ["tool_choice" in body for body in server.chat_requests()] == [False] * 3


@pytest.mark.parametrize(
    ("choice", "offered"),
    [
        (None, ["get_weather", "get_time"]),
        ("auto", ["get_weather", "get_time"]),
        ("required", ["get_weather", "get_time"]),  # it can't be made to call one
        ("named", ["get_time"]),  # the only one it can call
        ("none", None),  # no tools: it answers in words
    ],
)
async def test_ollama_has_no_tool_choice_and_is_offered_what_the_choice_allows(
    fake_ollama: FakeOllama, choice: str | None, offered: list[str] | None
) -> None:
    provider = ProviderConfig("ollama", "ollama", fake_ollama.base_url)
    async with aclosing(OllamaWire(provider)) as wire:
        assert isinstance(wire, UnforcedTools)  # the turn tells the person so
        tool_choice = CHOICES[choice] if choice else None
        await collect(wire.stream(ask("llama3.2:3b", tool_choice, (WEATHER, TIME))))
    body = fake_ollama.chat_requests()[0]
    assert "tool_choice" not in body
    tools = body.get("tools")
    assert (None if tools is None else [t["function"]["name"] for t in tools]) == offered


def test_only_ollama_cannot_force_a_call() -> None:
    """The wires whose APIs take a tool choice aren't taken for Ollama's."""
    for wire_class in (OpenAIChatWire, ResponsesWire, AnthropicWire, GeminiWire):
        assert not hasattr(wire_class, "offered_under"), wire_class
