"""One error tree, named for what the caller does next.

Each wire translates its provider's failures into these once, at its edge.
`message` is for the person (it says how to fix the problem); `detail` keeps the
provider's own words for the log and never reaches a model. Both are redacted
as the error is made (routing/secrets.py): a provider that echoes a key, or an
address with a password in it, never puts either in front of the person or in a
file. A kind with more to say (the wait asked, the models there are, the setting
refused) takes it as a keyword of its own and hands the rest on (`**about`).
"""

from __future__ import annotations

from routing.secrets import redact


class ProviderError(Exception):
    """A provider could not give an answer."""

    kind = "provider"

    def __init__(self, message: str, *, provider_id: str = "", detail: str = "") -> None:
        message, detail = redact(message), redact(detail)
        super().__init__(message)
        self.message = message
        self.provider_id = provider_id
        self.detail = detail

    def __str__(self) -> str:
        return self.message


class CannotConnect(ProviderError):
    """Nothing answered at the address: start the server or fix its address."""

    kind = "connect"


class ProxyUnusable(CannotConnect):
    """A proxy from the environment can't be used: fix or unset its variable."""

    kind = "proxy"


class TimedOut(ProviderError):
    """The server stopped answering in time: try again, or pick a lighter model."""

    kind = "timeout"


class KeyProblem(ProviderError):
    """The API key is missing or was refused: set or replace it."""

    kind = "auth"


class RateLimited(ProviderError):
    """Too many requests: wait `retry_after` seconds (when the provider said) and try again.

    Every wire tries once or twice more by itself before any word of the answer is
    shown (routing/wires/retry.py), unless the wait asked is long or it is a quota.
    """

    kind = "rate_limit"

    def __init__(self, message: str, *, retry_after: float | None = None, **about: str) -> None:
        super().__init__(message, **about)
        self.retry_after = retry_after


class QuotaExhausted(RateLimited):
    """Out of credit or quota: add credit or raise the limit (waiting won't help: never retried)."""


class ServerError(ProviderError):
    """The provider failed on its side: try again later."""

    kind = "server"


class StreamCut(ServerError):
    """An answer that stopped before the provider said it was done (the connection dropped,
    or the stream ended early or empty): try again. One that ended with no word at all
    may be a request past the model's window (app/turn/context_fit.py asks)."""


class Overloaded(RateLimited, ServerError):
    """The provider is busy for everyone right now (a 503, Anthropic's 529): wait a moment.

    A rate limit on the provider's side, so both a `RateLimited` (retried the same
    way, honouring `retry_after`) and a `ServerError`. Every wire raises this one type
    for it, whatever status or words its provider uses.
    """

    kind = "overloaded"


class ContextTooLong(ProviderError):
    """The conversation no longer fits the model: start a new chat or shorten it.
    `window` is the model's window in tokens where the refusal stated it (then learned)."""

    kind = "context"

    def __init__(self, message: str, *, window: int | None = None, **about: str) -> None:
        super().__init__(message, **about)
        self.window = window


class PicturesRefused(ProviderError):
    """The model does not take pictures: describe them in words and ask again."""

    kind = "images"


class ModelNotFound(ProviderError):
    """The provider has no such model; `available` lists what it has."""

    kind = "model"

    def __init__(self, message: str, *, available: tuple[str, ...] = (), **about: str) -> None:
        super().__init__(message, **about)
        self.available = available


class BadRequest(ProviderError):
    """The provider rejected the request's shape: a Sightline bug to report."""

    kind = "request"


class ParameterRefused(BadRequest):
    """The model refused one of the chat's settings, named: `param` is the request's field
    ("temperature", "max_tokens", "context_length"). Asked once more without it, and it is
    never sent to that model again (routing/parameters.py)."""

    kind = "parameter"

    def __init__(self, message: str, *, param: str, **about: str) -> None:
        super().__init__(message, **about)
        self.param = param


class MalformedResponse(ProviderError):
    """The answer was not in the provider's format: check the address points at it."""

    kind = "malformed"


class TooLarge(ProviderError):
    """The server sent more than Sightline reads (a line, an event, a body): check its address."""

    kind = "too_large"


class AnswerCut(ProviderError):
    """An answer reached the most Sightline keeps of one (routing/wires/bounded.py
    ANSWER_CHARS): cut there, what fits kept."""

    kind = "answer_cut"


class TurnTooLong(ProviderError):
    """A turn took longer than its overall limit (app/turn/limits.py): stopped, what came kept.
    Not a `TimedOut`: the server answered, so no other model is asked instead."""

    kind = "turn_limit"
