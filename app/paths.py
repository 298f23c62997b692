"""Where Sightline keeps the person's things: the config file and the data folder."""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path

from app.private_files import make_private_folder, tighten_folder

APP_NAME = "sightline"

# What Sightline keeps in the data folder, tightened on start (the folder may be one
# the person chose, with their own files beside these).
DATA_FILES = (
    "sightline.db",
    "sightline.db-wal",
    "sightline.db-shm",
    "sightline.db-journal",
    "keyring-providers.json",
    "window.ini",
    "logs/sightline.log",
    "logs/sightline.log.1",
    "logs/sightline.log.2",
    "logs/sightline.log.3",
)

_opened: set[Path] = set()  # data folders checked by this process
_opening = threading.Lock()


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


def open_data_dir(folder: Path) -> None:
    """Make the data folder private: created 0700, and once per process tightened.

    An older release left the folder 0755 and its files 0644; the first open by
    this process (the store's or the log's) takes the group's and others' access
    off the folder and Sightline's files in it, a few stat calls. OSError when the
    folder can't be created.
    """
    make_private_folder(folder)
    key = folder.absolute()
    with _opening:
        if key in _opened:
            return
        _opened.add(key)
    tighten_folder(folder, DATA_FILES)
