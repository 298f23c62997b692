"""The window's serving choice kept in the config file (app/presenters/serving_settings.py):
only what differs from the defaults, beside the person's other settings, read back alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import SERVE_PORT, ConfigError, load_config
from app.presenters.serving_settings import ServingChoice, remember
from app.serve.server import DEFAULT_PORT


def config_at(path: Path) -> ServingChoice:
    return ServingChoice.of(load_config({"SIGHTLINE_CONFIG": str(path)}))


def test_the_default_port_is_sightline_serves(tmp_path: Path) -> None:
    assert SERVE_PORT == DEFAULT_PORT
    assert config_at(tmp_path / "none.toml") == ServingChoice(False, DEFAULT_PORT, False)


def test_a_choice_is_kept_beside_the_other_settings_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '# mine\nvision_model = "ollama:llava:7b"\n\n[[providers]]\nkind = "ollama"\n',
        encoding="utf-8",
    )
    remember(path, ServingChoice(True, 8765, True))
    assert config_at(path) == ServingChoice(True, 8765, True)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# mine\n") and 'vision_model = "ollama:llava:7b"' in text
    remember(path, ServingChoice(False, SERVE_PORT, False))
    assert config_at(path) == ServingChoice()
    assert "serve" not in path.read_text(encoding="utf-8")  # the defaults leave no key behind


@pytest.mark.parametrize("port", ["0", "65536", '"11435"', "true", "-1"])
def test_a_port_that_is_no_port_is_the_files_error(tmp_path: Path, port: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(f"serve_port = {port}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"serve_port.*a port number from 1 to 65535"):
        load_config({"SIGHTLINE_CONFIG": str(path)})
