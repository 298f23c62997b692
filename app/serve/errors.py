"""What a served request can fail with, as one value each API shapes its own way.

A client's mistake, a model nobody has, an upstream failure: each becomes a
`ClientError` with the HTTP status the real API would give, and the OpenAI and Ollama
modules put it in their bodies. Nothing a client reads is a traceback, and a provider's
own words stay in the log (its `detail`), as everywhere in Sightline.
"""

from __future__ import annotations

from app.turn.events import TurnProblem
from routing.errors import ProviderError

MAX_BODY_BYTES = 32 * 1024 * 1024  # a request's body; 413 past it

NO_TOOLS = (
    "Tools are off on this Sightline server, so a request can't offer its tools or send tool "
    "calls and results. To allow them: start `sightline serve` with --allow-tools, or, in the "
    "Sightline window's Settings ▸ Serving, tick \"Let served requests use Sightline's tools\" "
    "(with serving off) and serve again."
)


class ClientError(Exception):
    """A request answered with an error: its status, words, and OpenAI's type/param/code.

    (Not a frozen dataclass: raising sets attributes on an exception, such as its
    traceback, which a frozen one refuses.)
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: str = "invalid_request_error",
        param: str | None = None,
        code: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.type = status, message, type
        self.param, self.code = param, code

    def __str__(self) -> str:
        """The words, as a log line shows them."""
        return self.message


def too_large(limit: int = MAX_BODY_BYTES) -> ClientError:
    """A body past the cap (413)."""
    return ClientError(
        413,
        f"The request body is larger than {limit // (1024 * 1024)} MB, which this server takes "
        "at most: send smaller pictures or fewer of them.",
        code="request_too_large",
    )


def tools_refused() -> ClientError:
    """A request offering tools (or carrying tool calls) to a server that has them off."""
    return ClientError(400, NO_TOOLS, param="tools")


# A failed turn's kind → the status the client gets. A provider's key problem is a bad
# gateway, not a 401: the client's own token was right, and a 401 would tell it otherwise.
_STATUS_BY_KIND = {
    "model": 404,
    "context": 400,
    "request": 400,
    "parameter": 400,
    "images": 400,
    "too_large": 413,
    "rate_limit": 429,
    "overloaded": 503,
    "timeout": 504,
    "turn_limit": 504,
    "connect": 502,
    "proxy": 502,
    "auth": 502,
    "server": 502,
    "malformed": 502,
    "answer_cut": 502,
    "provider": 502,
    "storage": 500,
}
_CODE_BY_KIND = {"model": "model_not_found", "context": "context_length_exceeded"}


def from_turn(error: ProviderError | TurnProblem) -> ClientError:
    """A turn's failure as the client is told it: Sightline's message, the kind's status."""
    status = _STATUS_BY_KIND.get(error.kind, 500 if isinstance(error, TurnProblem) else 502)
    kind = "invalid_request_error" if status < 500 and status != 429 else "server_error"
    return ClientError(status, error.message, type=kind, code=_CODE_BY_KIND.get(error.kind))
