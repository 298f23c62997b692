"""Running `sightline` as a person does: a whole process with its own environment."""

from __future__ import annotations

import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Never the person's real keyring, whatever this machine has.
NO_KEYRING = {"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}


def bare_env(tmp_path: Path, config: Path, **more: str) -> dict[str, str]:
    """A Sightline's whole environment: the system's PATH, a home of its own under
    `tmp_path` (its data there too), the config at `config`, and `more`."""
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "SIGHTLINE_CONFIG": str(config),
        "SIGHTLINE_DATA_DIR": str(tmp_path / "data"),
        **more,
    }


def command(*args: str) -> list[str]:
    """The command line of `sightline ARGS...` run by this Python."""
    return [sys.executable, "-m", "app", *args]


# What a child may map: enough for Sightline's own imports (about 600 MB of address
# space), so reading or decoding something unbounded fails fast instead of swapping.
MEMORY_CAP = 1 << 30


def _capped(limit: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply


def sightline(
    env: dict[str, str], *args: str, timeout: float = 60, memory_cap: int | None = MEMORY_CAP
) -> subprocess.CompletedProcess[str]:
    """Run `sightline ARGS...` to its end, its memory capped (None: not capped)."""
    return subprocess.run(
        command(*args),
        env=env | NO_KEYRING,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        preexec_fn=_capped(memory_cap) if memory_cap else None,
    )


def one_clear_line(done: subprocess.CompletedProcess[str]) -> str:
    """The failed run's one line on stderr (asserting there was no traceback)."""
    assert done.returncode not in (0, -9, -11), (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("sightline: ")]
    assert len(lines) == 1, done.stderr
    return lines[0]
