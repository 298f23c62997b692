"""A pull's progress in words, without a window: what Ollama is doing, how much has come."""

from __future__ import annotations

from app.presenters.pull_words import amount_words, size_words, status_words
from routing.ollama_models import PullProgress


def test_the_words_of_a_pull() -> None:
    step = PullProgress("pulling 1a2b3c4d5e6f", "sha256:1a2b", 1_234_000_000, 3_200_000_000)
    running = PullProgress(
        step.status, step.digest, step.completed, step.total, 38.56, 25_300_000.0
    )
    assert amount_words(running) == "1.2 GB of 3.2 GB · 38 % · 25 MB/s"
    assert amount_words(PullProgress("pulling manifest")) == ""
    assert status_words("llava:7b", running) == "Downloading llava:7b…"
    assert status_words("llava:7b", PullProgress("verifying sha256 digest")) == (
        "Checking the download of llava:7b…"
    )
    assert status_words("llava:7b", PullProgress("something new")) == "llava:7b: something new"
    assert [size_words(n) for n in (512, 12_300, 850_000_000, 4_700_000_000)] == [
        "512 bytes",
        "12 KB",
        "850 MB",
        "4.7 GB",
    ]
