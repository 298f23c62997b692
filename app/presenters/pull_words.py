"""One model being pulled into Ollama, in words, with no Qt: Ollama's status words become
the person's ("Downloading qwen2.5vl:3b…"), its bytes "1.2 GB of 3.2 GB · 41 % · 25 MB/s"
(decimal units, as Ollama's library writes sizes)."""

from __future__ import annotations

from routing.ollama_models import PullProgress

_PHASES = {
    "pulling manifest": "Asking the library for {name}…",
    "verifying sha256 digest": "Checking the download of {name}…",
    "writing manifest": "Finishing {name}…",
    "removing unused layers": "Tidying up after {name}…",
    "success": "{name} is ready.",
}


def size_words(count: float) -> str:
    """Bytes as people read a download: 3.2 GB, 850 MB, 12 KB."""
    if count >= 1e9:
        return f"{count / 1e9:.1f} GB"
    if count >= 1e6:
        return f"{count / 1e6:.0f} MB"
    if count >= 1e3:
        return f"{count / 1e3:.0f} KB"
    return f"{count:.0f} bytes"


def status_words(name: str, step: PullProgress) -> str:
    """What Ollama is doing with `name`, in words."""
    if step.status in _PHASES:
        return _PHASES[step.status].format(name=name)
    if step.digest:  # "pulling 1a2b3c4d5e6f": one layer of the model
        return f"Downloading {name}…"
    return f"{name}: {step.status}" if step.status else f"Pulling {name}…"


def amount_words(step: PullProgress) -> str:
    """ "1.2 GB of 3.2 GB · 41 % · 25 MB/s": what has come, of how much, and how fast."""
    if step.total <= 0:
        return ""
    parts = [f"{size_words(step.completed)} of {size_words(step.total)}"]
    if step.percent is not None:
        parts.append(f"{int(step.percent)} %")  # floored: 100 % only once it all came
    if step.bytes_per_second is not None and not step.done:
        parts.append(f"{size_words(step.bytes_per_second)}/s")
    return " · ".join(parts)
