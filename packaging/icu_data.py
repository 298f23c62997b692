"""A smaller ICU data library for the Linux build (used by packaging/sightline.spec).

PySide6's libQt6Core links ICU, whose data library (libicudata.so.73) is 32 MB of
CLDR and Unicode tables: the largest file in the build. Qt calls ICU for four things
only (the `*_73` symbols libQt6Core imports): converters (`ucnv_*`, QStringConverter's
legacy encodings), collation (`ucol_*`, QCollator, which sorts QFileDialog's lists),
calendars and time-zone names (`ucal_*`, QTimeZone) and case mapping (`u_strTo*`,
whose tables are compiled into libicuuc). The rest of the data serves ICU APIs Qt
never calls: break iterators, unit, currency, language and region display names,
transliterators, spelled-out numbers, character names, StringPrep and IDNA (Qt has
its own) and spoof checks. That is left out (16 MB); everything else stays, item for
item: the converters, collations, calendars, time-zone data and names, and the locale
data they draw on.

The library holds one ICU "common data" package exported as `icudt<NN>_dat`. The
package is rewritten without the dropped items (its format is ICU's `CmnD`: a header,
a table of names and offsets, then the items, each 16-byte aligned) and linked as a
new library with the same soname by the C compiler (`cc`). Without one the build
keeps the full library and says so.
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from collections.abc import Iterable
from pathlib import Path

# What is left out: names inside the package (after `icudt<NN>l/`) starting with
# one of these, and the StringPrep profiles (`*.spp`).
DROPPED = (
    *("brkitr/", "curr/", "lang/", "rbnf/", "region/", "translit/", "unit/"),
    *("unames.icu", "uts46.nrm", "confusables.cfu"),
)
DROPPED_SUFFIX = ".spp"

_SHT_DYNSYM = 11
_DATA_SYMBOL = re.compile(rb"icudt\d+_dat")
_PAD = b"\xaa"  # what ICU's own tools pad the table of names with


def _sections(elf: bytes) -> list[tuple[int, int, int, int, int]]:
    """(type, address, offset, size, link) of each section of a 64-bit little-endian ELF."""
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    (shoff,) = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", elf, 0x3A)
    found = []
    for index in range(shnum):
        _name, kind, _flags, address, offset, size, link = struct.unpack_from(
            "<IIQQQQI", elf, shoff + index * shentsize
        )
        found.append((kind, address, offset, size, link))
    return found


def exported_package(library: Path) -> tuple[str, bytes]:
    """The name (`icudt73_dat`) and bytes of the ICU data package a library exports."""
    elf = library.read_bytes()
    sections = _sections(elf)
    for kind, _address, offset, size, link in sections:
        if kind != _SHT_DYNSYM:
            continue
        strings = sections[link][2]
        for entry in range(offset, offset + size, 24):
            name_at, _info, _other, shndx, value, length = struct.unpack_from("<IBBHQQ", elf, entry)
            name = elf[strings + name_at : elf.index(b"\0", strings + name_at)]
            if _DATA_SYMBOL.fullmatch(name) and length:
                _kind, address, start, _size, _link = sections[shndx]
                begin = start + value - address
                package = elf[begin : begin + length]
                if package[2:4] != b"\xda\x27" or package[12:16] != b"CmnD":
                    raise ValueError(f"{library.name}: {name.decode()} is not ICU common data")
                return name.decode(), package
    raise ValueError(f"{library.name} exports no ICU data package")


def items(package: bytes) -> tuple[bytes, list[tuple[str, bytes]]]:
    """A package's header and its items, in order: (name, bytes with their padding)."""
    (header_size,) = struct.unpack_from("<H", package, 0)
    (count,) = struct.unpack_from("<I", package, header_size)
    table = [struct.unpack_from("<II", package, header_size + 4 + 8 * i) for i in range(count)]
    found = []
    for index, (name_at, data_at) in enumerate(table):
        name_start = header_size + name_at
        name = package[name_start : package.index(b"\0", name_start)].decode("ascii")
        end = table[index + 1][1] if index + 1 < count else len(package) - header_size
        found.append((name, package[header_size + data_at : header_size + end]))
    return package[:header_size], found


def package(header: bytes, entries: Iterable[tuple[str, bytes]]) -> bytes:
    """A package of these items (sorted by name already, as ICU looks them up by bisection)."""
    entries = list(entries)
    names = [name.encode("ascii") + b"\0" for name, _data in entries]
    name_at = 4 + 8 * len(entries)
    data_at = name_at + sum(map(len, names))
    data_at += -data_at % 16
    table = bytearray(struct.pack("<I", len(entries)))
    blobs = []
    for name, (_name, data) in zip(names, entries, strict=True):
        data += b"\0" * (-len(data) % 16)
        table += struct.pack("<II", name_at, data_at)
        blobs.append(data)
        name_at += len(name)
        data_at += len(data)
    table += b"".join(names)
    table += _PAD * (-len(table) % 16)
    return header + bytes(table) + b"".join(blobs)


def kept(name: str) -> bool:
    """Whether an item (`icudt73l/coll/de.res`) stays in the trimmed package."""
    inside = name.partition("/")[2]
    return not (inside.startswith(DROPPED) or inside.endswith(DROPPED_SUFFIX))


def trimmed_library(library: Path, workdir: Path) -> Path | None:
    """A copy of `library` without the DROPPED items, built in `workdir` (None without `cc`)."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    symbol, whole = exported_package(library)
    header, entries = items(whole)
    workdir.mkdir(parents=True, exist_ok=True)
    data = workdir / f"{symbol}.dat"
    data.write_bytes(package(header, [(n, d) for n, d in entries if kept(n)]))
    source = workdir / f"{symbol}.S"
    source.write_text(
        "\t.section .rodata\n"
        f"\t.globl {symbol}\n"
        f"\t.type {symbol}, @object\n"
        "\t.balign 16\n"
        f"{symbol}:\n"
        f'\t.incbin "{data}"\n'
        f"\t.size {symbol}, . - {symbol}\n"
        '\t.section .note.GNU-stack,"",@progbits\n',
        encoding="ascii",
    )
    target = workdir / library.name
    link = [compiler, "-shared", "-nostdlib", f"-Wl,-soname,{library.name}"]
    subprocess.run([*link, "-o", str(target), str(source)], check=True)
    if exported_package(target)[1] != data.read_bytes():
        raise RuntimeError(f"{target}: the linked data differs from {data}")
    return target


def trim_in(binaries: list[tuple[str, str, str]], workdir: Path) -> list[tuple[str, str, str]]:
    """PyInstaller's list of binaries with libicudata's source swapped for the trimmed copy."""
    swapped = []
    for dest, source, kind in binaries:
        if kind == "BINARY" and re.fullmatch(r"libicudata\.so\.\d+", Path(dest).name):
            trimmed = trimmed_library(Path(source), workdir)
            if trimmed is None:
                print(f"WARNING: no C compiler (cc): {Path(dest).name} keeps all its ICU data")
            else:
                source = str(trimmed)
        swapped.append((dest, source, kind))
    return swapped
