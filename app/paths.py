"""Where Sightline keeps the person's things: the config file and the data folder."""

from __future__ import annotations

import os
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
