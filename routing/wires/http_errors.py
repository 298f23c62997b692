"""The failures every HTTP wire meets, whatever its shape, in words that say what to do.

Nothing answered (or only a proxy did), it stopped answering, the answer was cut
off, there is no key, a web page came instead of an API. Each shape's classifier
(`openai_errors`, `anthropic_errors`, `gemini_errors`, `ollama_errors`) names its
provider with `who` and `server` from here, and says the refusals they share (a
conversation past the context, a setting it doesn't take) in the sentences here; what
a status says is routing/wires/statuses.py's table. The provider's own words go to
`.detail`, for the log.
"""

from __future__ import annotations

from typing import Any

import httpx

from routing.context_window import about, stated_window
from routing.endpoints import endpoint_name, without_credentials
from routing.errors import (
    CannotConnect,
    ContextTooLong,
    KeyProblem,
    MalformedResponse,
    ParameterRefused,
    PicturesRefused,
    ProviderError,
    ServerError,
    StreamCut,
    TimedOut,
)
from routing.models import ProviderConfig
from routing.parameters import WORDS as SETTING_WORDS
from routing.presets import Preset
from routing.refusals import Words, is_context_too_long, refuses_pictures
from routing.wires.client import proxy_for


def address(provider: ProviderConfig, preset: Preset | None) -> str:
    """Where the provider is: its configured address, else its preset's."""
    return provider.base_url or (preset.base_url if preset else "")


def server(provider: ProviderConfig, preset: Preset | None) -> str:
    """The server by host and port: the base URL's credentials and path stay out of words."""
    return f"The server at {endpoint_name(address(provider, preset))}"


def who(provider: ProviderConfig, preset: Preset | None) -> str:
    """The provider as a sentence names it: its label, or its server for one of your own."""
    if preset is not None and not preset.named_by_address:
        return preset.label
    return server(provider, preset)


def key_hint(preset: Preset | None) -> str:
    """Where a key goes."""
    if preset is not None and preset.key_env:
        return f"set {preset.key_env}, or add it in Settings → Providers"
    return "add it in Settings → Providers"


def no_longer_fits(
    model: str, *, provider_id: str, detail: str, text: str = "", body: str = ""
) -> ContextTooLong:
    """A conversation past the model's context, and what to do; the window it holds where
    the refusal's words (`text`, else `detail`) or its whole body (llama.cpp's carries
    n_ctx) state it."""
    window = stated_window(text or detail) or stated_window(body)
    holds = f" (it holds {about(window)})" if window else ""
    return ContextTooLong(
        f"The conversation no longer fits {model or 'the model'}'s context{holds}. Start a new "
        "chat, or remove earlier messages or pictures.",
        window=window,
        provider_id=provider_id,
        detail=detail,
    )


def refused_by_words(
    status: int,
    text: str,
    words: Words,
    pictures: str,
    *,
    model: str,
    had_pictures: bool = True,
    provider_id: str,
    detail: str,
    body: str = "",
) -> PicturesRefused | ContextTooLong | None:
    """What a provider's words alone say it refused, whatever its status: the pictures
    (`pictures` is the shape's sentence for that), or a conversation past the context."""
    if refuses_pictures(status, text, had_pictures, words):
        return PicturesRefused(pictures, provider_id=provider_id, detail=detail)
    if is_context_too_long(text, words):
        return no_longer_fits(model, provider_id=provider_id, detail=detail, text=text, body=body)
    return None


def setting_refused(
    name: str, model: str, setting: str, what: str, *, provider_id: str, detail: str
) -> ParameterRefused:
    """A setting of the chat's the model refused, named (`what`: the status, its kind)."""
    words = SETTING_WORDS.get(setting, setting)
    return ParameterRefused(
        f"{model or 'This model'} doesn't take the chat's {words}: {name} refused it ({what}). "
        f"Clear the {words} in the chat's settings, or pick another model.",
        param=setting,
        provider_id=provider_id,
        detail=detail,
    )


def missing_key(provider: ProviderConfig, preset: Preset | None) -> KeyProblem:
    """The error for a provider that needs a key and has none (raised before any request)."""
    return KeyProblem(
        f"{who(provider, preset)} needs an API key: {key_hint(preset)}.",
        provider_id=provider.id,
        detail="no API key configured",
    )


def not_in_format(
    shape: str, what: str, sample: str, points_at: str, *, provider_id: str, server: str = ""
) -> MalformedResponse:
    """An answer that is not in `shape` (`what` says how), with what the provider's address
    should point at; the start of what came kept for the log."""
    source = f"The answer from {server}" if server else "The answer"
    return MalformedResponse(
        f"{source} was not in {shape} ({what}). Check that the provider's address points "
        f"at {points_at}.",
        provider_id=provider_id,
        detail=sample[:500],
    )


def looks_like_html(text: str) -> bool:
    """Whether a body is a web page rather than an API's answer."""
    head = text.lstrip()[:200].lower()
    return head.startswith(("<!doctype html", "<html", "<head", "<body")) or (
        head.startswith("<") and "<html" in text[:2000].lower()
    )


def cut_off(provider: ProviderConfig, preset: Preset | None, detail: str) -> StreamCut:
    """An answer that stopped before the provider said it was done."""
    name = who(provider, preset)
    name = f"the {name[4:]}" if name.startswith("The ") else name  # mid-sentence
    return StreamCut(
        f"The answer was cut off: the connection to {name} dropped before it finished. Try again.",
        provider_id=provider.id,
        detail=detail,
    )


def translate_transport(
    provider: ProviderConfig, exc: httpx.HTTPError, *, preset: Preset | None = None
) -> ProviderError:
    """A failure to talk to the provider at all (refused, timed out, cut off) as our error."""
    where = address(provider, preset)
    name = endpoint_name(where)
    # httpx's words may quote the address, user-info and all; the log gets them without.
    kw: dict[str, Any] = {
        "provider_id": provider.id,
        "detail": without_credentials(f"{type(exc).__name__}: {exc}"),
    }
    proxy = proxy_for(where, local=provider.is_local)
    if proxy is not None and isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
        # Through a proxy, the connection that failed is the one to the proxy.
        return CannotConnect(
            f"Nothing answered at the proxy in {proxy.variable} ({proxy.name}) on the way to "
            f"{name}. Start the proxy, or fix or unset {proxy.variable}.",
            **kw,
        )
    if isinstance(exc, httpx.ProxyError):
        through = f"The proxy in {proxy.variable} ({proxy.name})" if proxy else "The proxy"
        fix = f"fix or unset {proxy.variable}" if proxy else "check the proxy settings"
        return CannotConnect(
            f"{through} could not reach {name}. Check your connection, or {fix}.", **kw
        )
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
        # A connect timeout means nothing answered: the same next step as a refusal.
        if preset is not None and preset.start_hint:
            start = preset.start_hint
        elif provider.is_local:
            start = "Start the server, or fix the provider's base URL."
        else:
            start = "Check your connection."
        return CannotConnect(f"Nothing answered at {name}. {start}", **kw)
    if isinstance(exc, httpx.TimeoutException):
        return TimedOut(
            f"{who(provider, preset)} stopped answering in time. Try again, or pick a lighter "
            "model.",
            **kw,
        )
    if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError):
        return cut_off(provider, preset, kw["detail"])
    if isinstance(exc, httpx.UnsupportedProtocol | httpx.InvalidURL):
        return CannotConnect(
            f"The base URL of {name or 'the provider'} is not an http:// or https:// address: "
            "fix it in the provider's settings.",
            **kw,
        )
    return ServerError(f"Talking to {who(provider, preset)} failed. Try again.", **kw)
