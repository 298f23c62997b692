"""Build Sightline for people without Python: `python packaging/build.py`.

Freezes the app with PyInstaller (packaging/sightline.spec) into dist/sightline/,
then archives it: dist/sightline-<version>-linux-x86_64.tar.xz on Linux (with the
.desktop file and icon beside the executable), a .tar.gz of Sightline.app on macOS,
a .zip on Windows. Prints where the output landed, how big it is and how long the
packing took.

The Linux archive is xz (LZMA2, preset 6; on x86-64 behind xz's x86 filter, which
makes machine code compress better): 46 MB where gzip made 64, which `tar -xJf`
unpacks anywhere, at about five times gzip's packing time (about two and a half
minutes on two cores; unpacking takes seconds).

`--if-stale` skips the build when dist/ already holds one made from the same
sources, spec and installed packages (the packaging tests use this).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import importlib.util
import lzma
import platform
import shutil
import subprocess
import sys
import tarfile
import time
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "packaging" / "sightline.spec"
DIST = ROOT / "dist"
WORK = ROOT / "build"
FOLDER = DIST / "sightline"
MAC_APP = DIST / "Sightline.app"
STAMP = DIST / ".sightline-build-inputs"  # the digest of what the build in dist/ came from
# What a build depends on, besides the installed packages.
INPUTS = ("app", "routing", "vision", "resources", "packaging", "pyproject.toml")
NO_PYINSTALLER = "needs PyInstaller (pip install -e .[dev] installs it)"


def version() -> str:
    """The version in pyproject.toml, as the spec reads it."""
    with open(ROOT / "pyproject.toml", "rb") as handle:
        return str(tomllib.load(handle)["project"]["version"])


def system() -> str:
    """linux, macos or windows."""
    return {"darwin": "macos", "win32": "windows"}.get(sys.platform, sys.platform)


def executable() -> Path:
    """The frozen `sightline` command."""
    return FOLDER / ("sightline.exe" if sys.platform == "win32" else "sightline")


def archive_path() -> Path:
    """Where the archive for this system lands."""
    suffix = {"win32": "zip", "darwin": "tar.gz"}.get(sys.platform, "tar.xz")
    machine = platform.machine().lower() or "unknown"
    return DIST / f"sightline-{version()}-{system()}-{machine}.{suffix}"


def inputs_digest() -> str:
    """A digest of the sources, spec, resources, Python and installed packages."""
    digest = hashlib.sha256(sys.version.encode())
    files = []
    for name in INPUTS:
        path = ROOT / name
        files += sorted(path.rglob("*")) if path.is_dir() else [path]
    for path in files:
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    packages = sorted(
        f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions()
    )
    digest.update("\n".join(packages).encode())
    return digest.hexdigest()


def is_fresh() -> bool:
    """True when dist/ holds a complete build of exactly the current inputs."""
    return (
        executable().is_file()
        and archive_path().is_file()
        and STAMP.is_file()
        and STAMP.read_text(encoding="utf-8").strip() == inputs_digest()
    )


def size_of(path: Path) -> int:
    """Bytes in a file, or in every file under a folder (links not followed)."""
    if not path.is_dir():
        return path.stat().st_size
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def megabytes(size: int) -> str:
    return f"{size / 1_000_000:.0f} MB"


def freeze() -> bool:
    """Run PyInstaller on the spec, replacing whatever dist/sightline held; True on success."""
    STAMP.unlink(missing_ok=True)
    command = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level=WARN"]
    command += ["--distpath", str(DIST), "--workpath", str(WORK), str(SPEC)]
    return subprocess.run(command, cwd=ROOT).returncode == 0


def add_desktop_entry() -> None:
    """Linux: the .desktop file and its icon go beside the executable (and so in the archive)."""
    shutil.copy2(ROOT / "resources" / "sightline.desktop", FOLDER / "sightline.desktop")
    shutil.copy2(ROOT / "resources" / "icons" / "sightline.png", FOLDER / "sightline.png")


def make_archive() -> Path:
    """Pack the build: what is shipped on this system, one folder inside."""
    target = archive_path()
    target.unlink(missing_ok=True)
    shipped = MAC_APP if sys.platform == "darwin" else FOLDER
    if sys.platform == "win32":
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(shipped.rglob("*")):
                archive.write(path, path.relative_to(DIST))
    elif sys.platform == "darwin":  # tar keeps the executable bits and Qt's framework links
        with tarfile.open(target, "w:gz") as archive:
            archive.add(shipped, arcname=shipped.name)
    else:
        with (
            lzma.LZMAFile(target, "w", filters=xz_filters()) as packed,
            tarfile.open(fileobj=packed, mode="w") as archive,
        ):
            archive.add(shipped, arcname=shipped.name)
    return target


def xz_filters() -> list[dict[str, int]]:
    """LZMA2 at preset 6, behind the x86 filter on x86-64 (Python's lzma has none for ARM)."""
    lzma2 = {"id": lzma.FILTER_LZMA2, "preset": 6}
    if platform.machine().lower() in ("x86_64", "amd64"):
        return [{"id": lzma.FILTER_X86}, lzma2]
    return [lzma2]


def report(took: str) -> None:
    """Where the output is and how big."""
    shipped = MAC_APP if sys.platform == "darwin" else FOLDER
    print(f"{took}; run {executable().relative_to(ROOT)}")
    for output in (shipped, archive_path()):
        print(f"  {megabytes(size_of(output)):>7}  {output.relative_to(ROOT)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build Sightline with PyInstaller.")
    parser.add_argument(
        "--if-stale", action="store_true", help="do nothing if dist/ is already up to date"
    )
    args = parser.parse_args(argv)
    if args.if_stale and is_fresh():
        report(f"Up to date: Sightline {version()}")
        return 0
    if importlib.util.find_spec("PyInstaller") is None:
        print(f"packaging/build.py {NO_PYINSTALLER}", file=sys.stderr)
        return 2

    started = time.monotonic()
    if not freeze():
        print("packaging/build.py: PyInstaller failed (its messages are above)", file=sys.stderr)
        return 1
    if sys.platform.startswith("linux"):
        add_desktop_entry()
    packing = time.monotonic()
    make_archive()
    STAMP.write_text(inputs_digest() + "\n", encoding="utf-8")
    done = time.monotonic()
    took = f"{done - started:.0f} s, packing {done - packing:.0f} s"
    report(f"Built Sightline {version()} in {took}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
