"""The server's bearer token: made on first start, kept 0600, compared in constant time.

Any program on this computer can reach a loopback port, so the port alone lets nobody in:
the token is what another app is given on purpose, as it would be given an API key.
"""

from __future__ import annotations

import hmac
import secrets
from pathlib import Path

from app.private_files import make_private_folder, tighten, write_private
from routing.secrets import register_secret

TOKEN_FILE = "serve-token"  # in the data folder, unless --token-file names another
MIN_LENGTH = 16  # a token file someone wrote by hand must still be hard to guess
MAX_BYTES = 4096  # a token file read past this is not a token file


class TokenProblem(Exception):
    """A token file that can't be used; the message says which file and what to do."""


def token_path(data_dir: Path, named: Path | None) -> Path:
    """Where the token is kept: `named` (--token-file), else the data folder's file."""
    return named.expanduser() if named is not None else data_dir / TOKEN_FILE


def load_or_make(path: Path) -> str:
    """The token in `path`, made and written 0600 first when there is none.

    A file found open to others is tightened: a token anyone on the computer can read
    guards nothing.
    """
    if path.exists() and not path.is_file():  # a folder, a pipe, a device: never waited on
        raise TokenProblem(f"the token file {path} is not a file: name a file for the token.")
    try:
        with path.open("rb") as file:  # bounded: --token-file may name anything
            raw = file.read(MAX_BYTES + 1)
        if len(raw) > MAX_BYTES:
            raise TokenProblem(
                f"the token file {path} is larger than {MAX_BYTES} bytes: name a file that "
                "holds only the token, or delete it and Sightline makes a new one."
            )
        text = raw.decode("utf-8").strip()
    except FileNotFoundError:
        text = ""
    except (OSError, UnicodeDecodeError) as exc:
        raise TokenProblem(f"the token file {path} can't be read ({exc}).") from None
    if not text:
        text = secrets.token_urlsafe(32)
        try:
            make_private_folder(path.parent)
            write_private(path, text + "\n")
        except OSError as exc:
            raise TokenProblem(f"the token file {path} can't be written ({exc}).") from None
        register_secret(text)  # never in a log or a message, whatever prints it
        return text
    if len(text) < MIN_LENGTH or any(c.isspace() for c in text):
        raise TokenProblem(
            f"the token in {path} is shorter than {MIN_LENGTH} characters or has spaces: "
            "delete the file and Sightline makes a new one."
        )
    tighten(path)
    register_secret(text)
    return text


def matches(expected: str, authorization: str | None) -> bool:
    """Whether an `Authorization` header carries the token (`Bearer TOKEN`), in constant time."""
    if not authorization:
        return False
    scheme, _, given = authorization.partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode(), expected.encode())
