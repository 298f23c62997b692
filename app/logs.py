"""Sightline's log: one rotating file in the data folder, private, with secrets kept out.

Every line passes through `routing.secrets.redact` as it is formatted, so a key,
a password or an MCP server's token never reaches the file in any form. The
folder is 0700 and every file of the log, rotated copies included, is 0600.
"""

from __future__ import annotations

import logging
from io import TextIOWrapper
from pathlib import Path
from typing import cast

from app.paths import open_data_dir
from app.private_files import make_private_folder, private_opener, tighten
from routing.secrets import redact

LOG_NAME = "sightline.log"
LOG_BYTES = 2_000_000  # a file this full is rotated
LOG_COPIES = 3  # rotated copies kept: sightline.log.1 to .3


class _RedactingFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def _rotating_file(path: Path) -> logging.Handler:
    """The rotating file handler, each file it opens (after a rotation too) made 0600."""
    from logging.handlers import RotatingFileHandler

    class _PrivateRotatingFile(RotatingFileHandler):
        def _open(self) -> TextIOWrapper:
            # A rotation renames the full file (keeping its mode) and opens a new one here.
            return cast(
                TextIOWrapper,
                open(  # the handler owns and closes it
                    self.baseFilename,
                    self.mode,
                    encoding=self.encoding,
                    errors=self.errors,
                    opener=private_opener,
                ),
            )

    return _PrivateRotatingFile(path, maxBytes=LOG_BYTES, backupCount=LOG_COPIES, encoding="utf-8")


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
            try:
                self._file = _rotating_file(self.path)
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
    # Python's last-resort handler (warnings on stderr while no handler is set up,
    # or when the file can't be) prints with a formatter of its own: redact there too.
    if logging.lastResort is not None:
        logging.lastResort.setFormatter(_RedactingFormatter())
    folder = data_dir / "logs"
    path = folder / LOG_NAME
    try:
        open_data_dir(data_dir)
        make_private_folder(folder)
        # Opened (and closed) now, so a file that can't be written means no handler.
        with open(path, "a", encoding="utf-8", opener=private_opener):
            pass
    except OSError:
        return None
    tighten(path)  # a log an older release left readable to others
    handler = _LogFile(path)
    handler.setFormatter(_RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.setLevel(level)
    root.addHandler(handler)
    # httpx logs every request line at INFO; that is noise in a person's log.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.WARNING)
    return path
