"""How Sightline names a model: `PROVIDER:MODEL`, the form the command line, the picker and
the store use.

The ref is cut at its first colon, since Ollama's model names have colons of their own
(`ollama:llama3.2:3b`). An agent's ref (`AGENT[:MODEL][#MODE]`, routing/agent_refs.py)
starts the same way. This module imports nothing, so the picker can read a ref before
the window's first paint.
"""

from __future__ import annotations


def model_ref(provider_id: str, name: str) -> str:
    """The ref of a provider's model."""
    return f"{provider_id}:{name}"


def ref_halves(ref: str) -> tuple[str, str]:
    """The provider and the model a ref names, as written: "" for a half left out (for a
    ref that may be half-written; `split_ref` insists on both)."""
    provider, _, model = ref.partition(":")
    return provider, model


def split_ref(ref: str) -> tuple[str, str]:
    """The provider and the model a ref names; ValueError when either is missing."""
    provider, model = ref_halves(ref)
    if not provider or not model:
        raise ValueError(f"{ref!r} is not PROVIDER:MODEL (for example ollama:llama3.2:3b)")
    return provider, model
