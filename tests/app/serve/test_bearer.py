"""The token (app/serve/bearer.py): made once, 0600, kept across starts, or in --token-file."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from app.serve.bearer import MAX_BYTES, TokenProblem, load_or_make, matches
from routing.secrets import redact
from tests.app.serve.conftest import running
from tests.conftest import SightlineHome


def test_made_once_private_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "data" / "serve-token"
    token = load_or_make(path)
    assert len(token) >= 32 and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_or_make(path) == token


def test_a_token_file_open_to_others_is_tightened_and_a_weak_one_refused(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("a-token-someone-wrote-by-hand\n")
    path.chmod(0o644)
    assert load_or_make(path) == "a-token-someone-wrote-by-hand"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    path.write_text("short\n")
    with pytest.raises(TokenProblem, match="shorter than 16"):
        load_or_make(path)


def test_matches_only_the_bearer_token() -> None:
    assert matches("t" * 20, "Bearer " + "t" * 20)
    assert matches("t" * 20, "bearer " + "t" * 20)
    for given in (None, "", "t" * 20, "Basic " + "t" * 20, "Bearer " + "t" * 19, "Bearer"):
        assert not matches("t" * 20, given)


def test_the_server_uses_the_token_file_named(home: SightlineHome, tmp_path: Path) -> None:
    named = tmp_path / "elsewhere" / "token"
    with running(home, "--token-file", str(named)) as served:  # stopped with Ctrl+C, status 0
        assert served.token_file == named and named.read_text().strip() == served.token
        assert not (home.data / "serve-token").exists()


def test_a_token_file_that_is_no_token_file_is_refused_in_words(tmp_path: Path) -> None:
    big = tmp_path / "big"
    big.write_bytes(b"x" * (MAX_BYTES + 1))
    with pytest.raises(TokenProblem, match="larger than 4096 bytes"):
        load_or_make(big)
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    with pytest.raises(TokenProblem, match="is not a file"):
        load_or_make(pipe)  # refused at once, not read for ever


def test_the_token_is_redacted_wherever_it_is_printed(tmp_path: Path) -> None:
    token = load_or_make(tmp_path / "token")
    assert token not in redact(f"Authorization: Bearer {token}")
