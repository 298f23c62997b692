"""A PDF of the conversation opened in the system's viewer, from a private temporary copy.

The viewer needs a file, and the PDF lives in the store, so it is written once
per session to a folder only this user can read (an unlocked PDF is kept
decrypted, so the copy is too); the folder goes when Sightline exits.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices

from vision.pdf import PdfFile

_folder: tempfile.TemporaryDirectory[str] | None = None


def _session_folder() -> Path:
    global _folder
    if _folder is None:  # made on first use: most sessions never open a PDF
        _folder = tempfile.TemporaryDirectory(prefix="sightline-pdfs-")
    return Path(_folder.name)


def temporary_copy(pdf: PdfFile) -> Path:
    """The PDF written to this session's private folder, under its own name (once)."""
    name = Path(pdf.name).name or "document.pdf"
    if not name.lower().endswith(".pdf"):
        name += ".pdf"
    # One folder per PDF: two PDFs may share a name, and the viewer shows the name.
    folder = _session_folder() / pdf.sha256[:16]
    folder.mkdir(mode=0o700, exist_ok=True)
    path = folder / name
    if not path.exists():
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(pdf.data)
    return path


def open_outside(pdf: PdfFile) -> bool:
    """Open the PDF in the system's viewer; False when there is none to open it."""
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(temporary_copy(pdf))))
