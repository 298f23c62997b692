"""What Sightline knows of a provider and of each of its models.

A wire lists a provider's models with what the listing says outright; the
catalogue then resolves each model's one answer (`Capabilities.resolve`): whether
it sees (and where that came from), whether it uses tools, whether it reads PDFs,
its picture size limit, and which of a chat's settings it doesn't take (and why).
The picker, attachment cards, router, describer and `sightline models` all read
that answer, and nothing works it out again.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum

from routing.context_window import ContextFrom
from routing.endpoints import on_this_computer
from routing.refs import model_ref

AGENT_KINDS = ("acp", "codex")  # engines that are programs (routing/presets.py names them)
# Codex's built-in model providers that run on this computer: `local` is implied for them.
CODEX_LOCAL_PROVIDERS = ("ollama", "lmstudio")


@dataclass(frozen=True)
class ProviderConfig:
    """One provider the person connected (or Sightline discovered)."""

    id: str
    kind: str
    base_url: str
    api_key: str = field(default="", repr=False)  # never printed, never logged
    enabled: bool = True
    local: bool | None = None  # None: decide from the address
    discovered: bool = False
    api: str = ""  # an OpenAI-shape provider's endpoint: "responses" or "chat"; "": its preset's
    # An agent (kind "acp" or "codex"): the program to start, its arguments and extra
    # environment; Codex's model provider (a name of its config, "" for its own sign-in).
    command: str = ""
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = field(default=(), repr=False)  # may hold secrets
    model_provider: str = ""
    # Its own limits, in seconds (None: Sightline's): how long a stream or an agent may
    # show no progress, and how long one turn may take in all (app/turn/limits.py).
    idle_seconds: float | None = None
    turn_seconds: float | None = None

    @property
    def is_agent(self) -> bool:
        """Whether this is an engine with its own tool loop (an ACP agent or Codex's app
        server), not a model API."""
        return self.kind in AGENT_KINDS

    @property
    def is_local(self) -> bool:
        """Whether this provider runs on this computer (config overrides the address)."""
        if self.local is not None:
            return self.local
        if self.is_agent:  # no address to judge by: its own model is elsewhere unless said
            return self.kind == "codex" and self.model_provider in CODEX_LOCAL_PROVIDERS
        return on_this_computer(self.base_url)

    def with_key(self, api_key: str) -> ProviderConfig:
        """The same provider with a key filled in."""
        return replace(self, api_key=api_key)


class SightFrom(StrEnum):
    """Where a model's answer to "does it see?" came from."""

    LISTING = "listing"  # the provider's own list of models said
    PRESET = "preset"  # the provider's rule (all of OpenAI's see; a name pattern for Groq)
    LEARNED = "learned"  # it refused a picture, so it is treated as blind
    CHECKED = "checked"  # Sightline's sight check asked it (only where nobody says)
    MARKED = "marked"  # the person marked it blind themselves
    UNKNOWN = "unknown"  # nobody says


class NotTaken(StrEnum):
    """Why a model doesn't take one of a chat's settings (so it is never sent to it)."""

    API = "api"  # its provider's API has no such field (the context length is Ollama's)
    PRESET = "preset"  # its provider's documented rule (OpenAI's reasoning models)
    LEARNED = "learned"  # it refused it, naming it


class Verdict(StrEnum):
    """What a sight check found: the model sees the probe, is blind to it, or nobody can say."""

    SEES = "sees"
    BLIND = "blind"
    UNSURE = "unsure"


@dataclass(frozen=True)
class ModelInfo:
    """One model of one provider, with its abilities (None = unknown).

    From a wire, `sees` and `tools` are what the listing said; from the catalogue,
    they are the model's one answer, with `sight_from` saying where sight came from and
    `checked` what a sight check found, shown beside a listing's word that stands.
    """

    provider_id: str
    name: str
    sees: bool | None = None
    tools: bool | None = None
    local: bool = False
    # The context window in tokens and where it came from (routing/context_window.py):
    # from a wire, what its listing or server said (None: it said nothing); from the
    # catalogue, the model's one answer, never None.
    context_length: int | None = None
    context_from: ContextFrom = ContextFrom.LISTING
    label: str = ""
    sight_from: SightFrom = SightFrom.UNKNOWN
    checked: Verdict | None = None  # a sight check's verdict, whether or not it is the sight
    size: int | None = None  # bytes on disk, as its listing said (Ollama's /api/tags)
    reads_pdfs: bool = False  # takes attached PDFs as PDFs (Claude), not Sightline's reading
    picture_side: int = 2048  # the longest side of a picture its provider is sent
    takes_pictures: bool = True  # its provider accepts pictures at all
    # The chat's settings (routing/parameters.py) it doesn't take, each with why, by name.
    not_taken: tuple[tuple[str, NotTaken], ...] = ()

    def takes(self, setting: str) -> bool:
        """Whether a chat's setting (a ChatRequest field, such as "temperature") is sent to it."""
        return self.why_not(setting) is None

    def why_not(self, setting: str) -> NotTaken | None:
        """Why it doesn't take a setting, or None when it takes it."""
        return next((why for name, why in self.not_taken if name == setting), None)

    @property
    def ref(self) -> str:
        """`provider:model`, the form the command line and the store use."""
        return model_ref(self.provider_id, self.name)

    @property
    def gets_pictures(self) -> bool:
        """Whether Sightline sends it pictures as pictures: it sees, or nobody knows and
        its provider takes pictures (it then may or may not see them)."""
        return self.takes_pictures if self.sees is None else self.sees
