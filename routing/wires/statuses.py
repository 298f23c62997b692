"""One table: what an HTTP status says went wrong, the error it becomes, and its words.

As openai-python's `_make_status_error` maps a status to one exception class,
`STATUSES` maps a status to one `Failure`, `ERRORS` each failure to the error of
routing/errors.py it becomes, and `WORDS` gives it the sentence a person reads. Every classifier
(openai_errors, anthropic_errors, gemini_errors, ollama_errors, and Ollama's pulls in
routing/ollama_models.py) first reads its body with its own words
(routing/refusals.py): a refused picture, an overlong conversation, a setting the
model doesn't take, and how the body names a failure the status doesn't (Anthropic's
`error.type`, Gemini's `status`, an error inside a 200 stream). What is left it hands
to `status_error` with its own sentences for the failures it says differently; the
provider's words stay in `.detail`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum, auto

from routing.errors import (
    BadRequest,
    KeyProblem,
    MalformedResponse,
    ModelNotFound,
    Overloaded,
    ProviderError,
    QuotaExhausted,
    RateLimited,
    ServerError,
    TimedOut,
)
from routing.wires.retry import wait_words


class Failure(Enum):
    """What went wrong, as a status says it (or a shape's words, for the last few)."""

    UNAUTHORIZED = auto()  # 401: the key is missing or refused
    FORBIDDEN = auto()  # 403: the key may not do this
    NO_CREDIT = auto()  # 402: out of credit or quota (waiting won't help)
    NOT_FOUND = auto()  # 404: no such path, so the address is no such API
    GAVE_UP = auto()  # 408: the server gave up waiting for the request
    TOO_LARGE = auto()  # 413
    RATE_LIMITED = auto()  # 429
    UNAVAILABLE = auto()  # 503: busy for everyone right now
    OVERLOADED = auto()  # 529 (Anthropic's): the same, with the wait it asks
    SERVER = auto()  # any other 5xx, or an error inside a 200 stream
    REQUEST = auto()  # any other 4xx: only a wrong request of Sightline's explains it
    # Said by words, not by a status:
    NO_MODEL = auto()  # a 404 (or another 4xx) whose words say there is no such model
    NO_TOOLS = auto()  # a 4xx whose words say the model can't use tools
    GATEWAY_DOWN = auto()  # a gateway's page (502, 503, 504) where the API's answer should be


STATUSES: Mapping[int, Failure] = {
    401: Failure.UNAUTHORIZED,
    402: Failure.NO_CREDIT,
    403: Failure.FORBIDDEN,
    404: Failure.NOT_FOUND,
    408: Failure.GAVE_UP,
    413: Failure.TOO_LARGE,
    429: Failure.RATE_LIMITED,
    503: Failure.UNAVAILABLE,
    529: Failure.OVERLOADED,
}
# A gateway in front of an API answers these with its own page when the API is down.
GATEWAY_STATUSES = (502, 503, 504)


def failure_of(status: int) -> Failure:
    """The failure a status says: the table's, else a server's (a 5xx, or an error inside
    a 200 stream) or the request's (any other 4xx)."""
    if (failure := STATUSES.get(status)) is not None:
        return failure
    return Failure.REQUEST if 400 <= status < 500 else Failure.SERVER


@dataclass(frozen=True)
class Failed:
    """One failed answer, as its sentence tells it."""

    name: str  # the provider as a sentence names it (http_errors.who)
    status: int  # the HTTP status, or 200 for an error inside the stream
    model: str = ""
    wait: float | None = None  # the seconds it asked to wait, for a failure that waits
    at: str = ""  # where a wrong path was asked ("": the name)
    key_hint: str = "add it in Settings → Providers"  # where a good key goes
    what: str = ""  # the status as a refusal names it ("": `where`)
    in_stream: bool = False  # inside a 200 stream (its body may name a status)

    @property
    def where(self) -> str:
        """ "HTTP 429", or "in the stream"."""
        return "in the stream" if self.in_stream else f"HTTP {self.status}"

    @property
    def subject(self) -> str:
        """The model as a sentence starts with it."""
        return f"The model {self.model}" if self.model else "This model"

    @property
    def wait_advice(self) -> str:
        """How long to wait before trying again, as the provider asked."""
        if self.wait:
            return f"Wait {wait_words(self.wait)} and try again."
        return "Wait a moment and try again."


# A failure in words: the sentence a person reads.
Sentence = Callable[[Failed], str]

# The error each failure becomes, whatever the shape.
ERRORS: Mapping[Failure, type[ProviderError]] = {
    Failure.UNAUTHORIZED: KeyProblem,
    Failure.FORBIDDEN: KeyProblem,
    Failure.NO_CREDIT: QuotaExhausted,
    Failure.NOT_FOUND: MalformedResponse,
    Failure.GAVE_UP: TimedOut,
    Failure.TOO_LARGE: BadRequest,
    Failure.RATE_LIMITED: RateLimited,
    Failure.UNAVAILABLE: Overloaded,
    Failure.OVERLOADED: Overloaded,
    Failure.SERVER: ServerError,
    Failure.REQUEST: BadRequest,
    Failure.NO_MODEL: ModelNotFound,
    Failure.NO_TOOLS: BadRequest,
    Failure.GATEWAY_DOWN: Overloaded,
}


def _key_refused(it: Failed) -> str:
    return f"{it.name} refused the API key (HTTP {it.status}): {it.key_hint}."


# Each failure's words where a shape has none of its own.
WORDS: Mapping[Failure, Sentence] = {
    Failure.UNAUTHORIZED: _key_refused,
    Failure.FORBIDDEN: _key_refused,
    Failure.NO_CREDIT: lambda it: (
        f"{it.name} says the account is out of credit or quota. Add credit or raise the limit "
        "in the provider's console, or pick another provider."
    ),
    Failure.NOT_FOUND: lambda it: (
        f"{it.at or it.name} has no such API path (HTTP {it.status}). Check the provider's "
        "base URL."
    ),
    Failure.GAVE_UP: lambda it: (
        f"{it.name} gave up waiting for the request (HTTP {it.status}). Try again."
    ),
    Failure.TOO_LARGE: lambda it: (
        f"The request is too large for {it.name} (HTTP {it.status}). Send fewer or smaller "
        "pictures, or start a new chat."
    ),
    Failure.RATE_LIMITED: lambda it: f"{it.name} is limiting requests. {it.wait_advice}",
    Failure.UNAVAILABLE: lambda it: f"{it.name} is overloaded right now. Try again in a moment.",
    Failure.OVERLOADED: lambda it: f"{it.name} is overloaded. {it.wait_advice}",
    Failure.SERVER: lambda it: (
        f"{it.name} failed while answering{f' (HTTP {it.status})' if it.status >= 500 else ''}. "
        "Try again later."
    ),
    Failure.REQUEST: lambda it: (
        f"{it.name} rejected the request ({it.what or it.where}). This is a Sightline bug: "
        "please report it with the details."
    ),
    Failure.NO_MODEL: lambda it: (
        f"{it.name} has no model called {it.model or 'that'}. Pick one of its models."
    ),
    Failure.NO_TOOLS: lambda it: (
        f"{it.subject} can't use tools. Pick a model that can, or turn tools off for this chat."
    ),
    Failure.GATEWAY_DOWN: lambda it: (
        f"{it.name} is unavailable right now (HTTP {it.status}). Try again."
    ),
}


def status_error(
    failure: Failure,
    failed: Failed,
    own: Mapping[Failure, Sentence] | None = None,
    *,
    provider_id: str,
    detail: str,
) -> ProviderError:
    """The error a failure becomes, in the shape's `own` words where it has them: the wait
    asked kept on a rate limit, never on a quota (waiting won't help)."""
    error, words = ERRORS[failure], (own or {}).get(failure) or WORDS[failure]
    message = words(failed)
    if issubclass(error, RateLimited):
        wait = None if issubclass(error, QuotaExhausted) else failed.wait
        return error(message, provider_id=provider_id, detail=detail, retry_after=wait)
    return error(message, provider_id=provider_id, detail=detail)
