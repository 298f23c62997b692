"""Where Sightline keeps things: config, data, logs, and its own resources."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

APP_NAME = "sightline"


def config_file(environ: Mapping[str, str] = os.environ) -> Path:
    """The config file: `SIGHTLINE_CONFIG`, else `config.toml` in the platform config folder."""
    named = environ.get("SIGHTLINE_CONFIG")
    if named:
        return Path(named).expanduser()
    import platformdirs

    return platformdirs.user_config_path(APP_NAME) / "config.toml"


def data_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """The data folder: `SIGHTLINE_DATA_DIR`, else the platform data folder."""
    named = environ.get("SIGHTLINE_DATA_DIR")
    if named:
        return Path(named).expanduser()
    import platformdirs

    return platformdirs.user_data_path(APP_NAME)


def resources_dir() -> Path:
    """The bundled `resources/` folder, from source or from a frozen build."""
    frozen_root = getattr(sys, "_MEIPASS", None)
    if frozen_root:
        return Path(frozen_root) / "resources"
    return Path(__file__).resolve().parent.parent / "resources"
