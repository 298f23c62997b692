"""Sightline's log: one rotating file in the data folder, with secrets kept out."""

from __future__ import annotations

import logging
import re
from pathlib import Path

# Shapes of API keys and bearer tokens; a key must never reach a log file.
_SECRET = re.compile(
    r"(?i)(bearer\s+|x-api-key[\"':\s]+|api[_-]?key[\"'=:\s]+)[^\s\"',}]+"
    r"|\b(sk|pk|gsk|xai|csk)-[A-Za-z0-9_\-]{8,}|\bAIza[0-9A-Za-z_\-]{20,}"
)


_known: set[str] = set()  # the keys in use, whatever their shape


def register_secret(value: str) -> None:
    """Never let this value (an API key in use) reach the log, in any form of message."""
    if len(value) >= 8:
        _known.add(value)


def redact(text: str) -> str:
    """The text with every key in use, and anything shaped like a key, replaced."""
    for secret in _known:
        text = text.replace(secret, "[redacted]")
    return _SECRET.sub(lambda m: (m.group(1) or "") + "[redacted]", text)


class _RedactingFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class _LogFile(logging.Handler):
    """The rotating log file, its rotation set up by the first record.

    So `logging.handlers` (~3 ms to import) loads when something is first logged,
    not before the window's first paint.
    """

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self._file: logging.Handler | None = None

    def emit(self, record: logging.LogRecord) -> None:
        """Write one record (under this handler's lock), rotating as the file fills."""
        if self._file is None:
            from logging.handlers import RotatingFileHandler

            try:
                self._file = RotatingFileHandler(
                    self.path, maxBytes=2_000_000, backupCount=3, encoding="utf-8"
                )
            except OSError:
                self.handleError(record)
                return
            self._file.setFormatter(self.formatter)
        self._file.emit(record)

    def flush(self) -> None:
        """Flush the file, if it is open."""
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        """Close the file, if it is open."""
        if self._file is not None:
            self._file.close()
        super().close()


def setup_logging(data_dir: Path, level: int = logging.INFO) -> Path | None:
    """Send log records to `data_dir/logs/sightline.log`; None if the folder can't be written."""
    folder = data_dir / "logs"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # Opened (and closed) now, so a file that can't be written means no handler.
        with open(folder / "sightline.log", "a", encoding="utf-8"):
            pass
    except OSError:
        return None
    handler = _LogFile(folder / "sightline.log")
    handler.setFormatter(_RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.setLevel(level)
    root.addHandler(handler)
    # httpx logs every request line at INFO; that is noise in a person's log.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.WARNING)
    return folder / "sightline.log"
