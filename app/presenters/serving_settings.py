"""The window's server for other apps as the person chooses it (Settings ▸ Serving): on or
off, its port, whether served turns may use Sightline's tools; and that choice kept in the
config file, so the next start serves again.

The choice is kept the moment it is made, as the switch acts at once (no Save), and only
what differs from the defaults is written: an untouched key stays out of the person's file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.config import SERVE_PORT, Config


@dataclass(frozen=True)
class ServingChoice:
    """Serve or not, where, and with Sightline's tools or not."""

    on: bool = False
    port: int = SERVE_PORT
    tools: bool = False

    @classmethod
    def of(cls, config: Config) -> ServingChoice:
        """The choice the config file keeps."""
        return cls(config.serve_in_window, config.serve_port, config.serve_tools)


def remember(path: Path, choice: ServingChoice) -> None:
    """Keep `choice` in the config file at `path` (ConfigError when it can't be written)."""
    # Here, not above: tomlkit and the providers' presets load only when something is kept,
    # and the window knows the choice before its first paint.
    from app.presenters.settings_model import save_top_level

    save_top_level(
        path,
        {
            "serve_in_window": True if choice.on else None,
            "serve_port": choice.port if choice.port != SERVE_PORT else None,
            "serve_tools": True if choice.tools else None,
        },
    )
