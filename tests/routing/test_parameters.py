"""A chat's settings sent only to a model that takes them (routing/parameters.py): fitted
by what is known, and a refusal naming one, in each provider's own words on a real
loopback server, sent once more without it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any

import pytest

from routing.capabilities import resolved
from routing.errors import BadRequest, ParameterRefused
from routing.models import ModelInfo, NotTaken, ProviderConfig
from routing.parameters import SettingRefused, fitted, stream_taken
from routing.transcript import user_message
from routing.wires.base import ChatRequest, Done, TextDelta, Wire
from routing.wires.registry import make_wire
from tests.servers import anthropic, gemini, openai_chat, openai_responses

KEY = "sk-test"


@dataclass(frozen=True)
class Refusing:
    """A loopback server whose model refuses its temperature in its provider's words."""

    name: str
    kind: str
    model: str
    serve: Callable[[], AbstractContextManager[Any]]
    address: Callable[[Any], str]
    sent: Callable[[dict[str, Any]], Any]  # the temperature a request body carried


@contextmanager
def _chat(
    refuses: tuple[str, ...] = (), default_only: tuple[str, ...] = ()
) -> Iterator[openai_chat.FakeOpenAI]:
    model = openai_chat.ChatModel("reasoner", refuses=refuses, default_only=default_only)
    with openai_chat.FakeOpenAI([model]) as server:
        yield server


@contextmanager
def _responses() -> Iterator[openai_responses.FakeResponses]:
    model = openai_responses.ResponsesModel("reasoner", reasons=True, refuses=("temperature",))
    with openai_responses.FakeResponses([model], api_key=KEY) as server:
        yield server


@contextmanager
def _anthropic(words: str) -> Iterator[anthropic.FakeAnthropic]:
    model = anthropic.FakeModel("claude-sonnet-4-6", "Claude", refuses=(("temperature", words),))
    with anthropic.FakeAnthropic([model], api_key=KEY) as server:
        yield server


@contextmanager
def _gemini() -> Iterator[gemini.FakeGemini]:
    model = gemini.GeminiModel("gemini-2.5-flash", refuses=("temperature",))
    with gemini.FakeGemini([model], api_key=KEY) as server:
        yield server


def _top(body: dict[str, Any]) -> Any:
    return body.get("temperature")


REFUSING = [
    # Chat completions: any value refused (unsupported_parameter), or all but the default.
    Refusing(
        "chat", "custom", "reasoner", lambda: _chat(refuses=("temperature",)), lambda s: s.url, _top
    ),
    Refusing(
        "chat-default-only",
        "custom",
        "reasoner",
        lambda: _chat(default_only=("temperature",)),
        lambda s: s.url,
        _top,
    ),
    Refusing("responses", "openai", "reasoner", _responses, lambda s: s.url, _top),
    Refusing(
        "anthropic-deprecated",
        "anthropic",
        "claude-sonnet-4-6",
        lambda: _anthropic(anthropic.DEPRECATED),
        lambda s: s.base_url,
        _top,
    ),
    Refusing(
        "anthropic-extra-input",
        "anthropic",
        "claude-sonnet-4-6",
        lambda: _anthropic(anthropic.EXTRA_INPUT),
        lambda s: s.base_url,
        _top,
    ),
    Refusing(
        "gemini",
        "gemini",
        "gemini-2.5-flash",
        _gemini,
        lambda s: s.base_url,
        lambda body: (body.get("generationConfig") or {}).get("temperature"),
    ),
]


@pytest.fixture(params=REFUSING, ids=[r.name for r in REFUSING])
def refusing(request: pytest.FixtureRequest) -> Iterator[tuple[Refusing, Any]]:
    case: Refusing = request.param
    with case.serve() as server:
        yield case, server


@pytest.fixture
async def wire(refusing: tuple[Refusing, Any]) -> AsyncIterator[Wire]:
    case, server = refusing
    made = make_wire(ProviderConfig("p", case.kind, case.address(server), api_key=KEY))
    yield made
    await made.aclose()


def _request(model: str, **settings: Any) -> ChatRequest:
    return ChatRequest(model, (user_message("hello"),), **settings)


async def _events(stream: AsyncIterator[Any]) -> list[Any]:
    return [event async for event in stream]


async def test_the_wire_names_the_refused_setting_in_a_typed_error(
    refusing: tuple[Refusing, Any], wire: Wire
) -> None:
    case, server = refusing
    with pytest.raises(ParameterRefused) as refused:
        await _events(wire.stream(_request(case.model, temperature=0.4)))
    assert refused.value.param == "temperature"
    assert "Sightline bug" not in refused.value.message
    assert "temperature" in refused.value.message
    assert [case.sent(body) for body in server.chat_requests()] == [0.4]


async def test_a_refused_setting_is_left_out_and_the_request_sent_once_more(
    refusing: tuple[Refusing, Any], wire: Wire
) -> None:
    case, server = refusing
    events = await _events(stream_taken(wire, _request(case.model, temperature=0.4)))
    told = [e for e in events if isinstance(e, SettingRefused)]
    assert [(e.param, e.value) for e in told] == [("temperature", 0.4)]
    assert isinstance(events[0], SettingRefused)  # before anything of the answer
    assert "".join(e.text for e in events if isinstance(e, TextDelta)).startswith("You said")
    assert any(isinstance(e, Done) for e in events)
    # Asked twice: with the temperature, then without it (the rest of the body the same).
    first, second = server.chat_requests()
    assert (case.sent(first), case.sent(second)) == (0.4, None)


async def test_a_request_without_the_setting_is_answered_at_once(
    refusing: tuple[Refusing, Any], wire: Wire
) -> None:
    case, server = refusing
    events = await _events(stream_taken(wire, _request(case.model)))
    assert not any(isinstance(e, SettingRefused) for e in events)
    assert len(server.chat_requests()) == 1


async def test_the_default_temperature_is_taken_where_only_the_default_is() -> None:
    with _chat(default_only=("temperature",)) as server:
        made = make_wire(ProviderConfig("p", "custom", server.url))
        try:
            events = await _events(stream_taken(made, _request("reasoner", temperature=1.0)))
        finally:
            await made.aclose()
    assert not any(isinstance(e, SettingRefused) for e in events)
    assert [body["temperature"] for body in server.chat_requests()] == [1.0]


async def test_a_refusal_that_names_no_setting_is_not_sent_again() -> None:
    with _chat() as server:
        server.enqueue(
            openai_chat.Reply(
                status=400,
                body={
                    "error": {
                        "message": "Invalid 'messages[0].name': string too long.",
                        "type": "invalid_request_error",
                        "param": "messages[0].name",
                        "code": "string_above_max_length",
                    }
                },
            )
        )
        made = make_wire(ProviderConfig("p", "custom", server.url))
        try:
            with pytest.raises(BadRequest) as refused:
                await _events(stream_taken(made, _request("reasoner", temperature=0.4)))
        finally:
            await made.aclose()
    assert not isinstance(refused.value, ParameterRefused)
    assert len(server.chat_requests()) == 1


async def test_a_refusal_naming_a_setting_the_request_did_not_carry_is_not_sent_again() -> None:
    with _chat() as server:
        refusal = openai_chat.unsupported({"temperature": 0.4}, _refuses_temperature())
        server.enqueue(openai_chat.Reply(status=400, body=refusal))
        made = make_wire(ProviderConfig("p", "custom", server.url))
        try:
            with pytest.raises(ParameterRefused):  # nothing to leave out: said as it is
                await _events(stream_taken(made, _request("reasoner", max_tokens=50)))
        finally:
            await made.aclose()
    assert [body.get("max_tokens") for body in server.chat_requests()] == [50]


def _refuses_temperature() -> openai_chat.ChatModel:
    return openai_chat.ChatModel("reasoner", refuses=("temperature",))


def _model(kind: str, name: str, refused: tuple[str, ...] = ()) -> ModelInfo:
    return resolved(ModelInfo("p", name), kind, refused=refused)


@pytest.mark.parametrize(
    ("kind", "name", "why"),
    [
        ("openai", "gpt-5-mini", NotTaken.PRESET),
        ("openai", "o3", NotTaken.PRESET),
        ("openai", "gpt-4.1", None),
        ("anthropic", "claude-opus-4-7", NotTaken.PRESET),
        ("anthropic", "claude-opus-4-8", NotTaken.PRESET),
        ("anthropic", "claude-sonnet-5", NotTaken.PRESET),
        ("anthropic", "claude-opus-4-6", None),
        ("anthropic", "claude-sonnet-4-6", None),
        ("anthropic", "claude-haiku-4-5-20251001", None),
        ("gemini", "gemini-2.5-flash", None),
        ("ollama", "llama3.2:3b", None),
    ],
)
def test_a_providers_rule_says_which_models_take_no_temperature(
    kind: str, name: str, why: NotTaken | None
) -> None:
    assert _model(kind, name).why_not("temperature") == why


def test_fitted_leaves_out_what_the_model_does_not_take_and_says_which() -> None:
    request = _request("gpt-5-mini", temperature=0.4, max_tokens=300, context_length=8192)
    fit, left_out = fitted(request, _model("openai", "gpt-5-mini"))
    assert left_out == ("temperature", "context_length")  # its rule; its API has no num_ctx
    assert (fit.temperature, fit.max_tokens, fit.context_length) == (None, 300, None)
    fit, left_out = fitted(request, _model("ollama", "llama3.2:3b"))
    assert (fit, left_out) == (request, ())  # Ollama's API takes all three
    learned = _model("custom", "reasoner", refused=("max_tokens",))
    assert learned.why_not("max_tokens") == NotTaken.LEARNED
    assert fitted(request, learned)[1] == ("max_tokens", "context_length")
