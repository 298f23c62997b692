"""packaging/icu_data.py: the Linux build's ICU data, without the tables Qt never uses.

Qt answers the same with the trimmed library as with PySide6's own: the probe below
runs QtCore's ICU-backed calls (QCollator, QTimeZone's names, QStringDecoder, QLocale's
case mapping) once with each library and compares. Leaving out an item Qt reads
(a collation, a zone's names, a converter) changes some answer and fails the test.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="PySide6 bundles ICU on Linux only"
)

PROBE = r"""
import functools, json, sys
from PySide6.QtCore import QCollator, QLocale, QStringDecoder, QTimeZone

answers = {}
words = ["Äpfel", "apfel", "Zebra", "öl", "Ol", "ångström", "file10", "file9", "ch", "cz",
         "中文", "日本", "한국"]
for name in ["en_US", "de_DE", "sv_SE", "cs_CZ", "zh_CN", "ja_JP"]:
    collator = QCollator(QLocale(name))
    collator.setNumericMode(True)
    answers["sorted " + name] = sorted(words, key=functools.cmp_to_key(collator.compare))
kinds = [QTimeZone.TimeType.StandardTime, QTimeZone.TimeType.DaylightTime]
forms = [QTimeZone.NameType.LongName, QTimeZone.NameType.ShortName]
for zone in [b"Europe/Berlin", b"America/New_York", b"Asia/Tokyo"]:
    for name in ["en_US", "de_DE", "ja_JP"]:
        answers[f"zone {zone} {name}"] = [
            QTimeZone(zone).displayName(kind, form, QLocale(name)) for kind in kinds
            for form in forms
        ]
answers["zones"] = len(QTimeZone.availableTimeZoneIds())
for encoding in ["Shift_JIS", "GB18030", "Big5", "EUC-KR", "windows-1252", "KOI8-R"]:
    answers["codec " + encoding] = QStringDecoder(encoding).isValid()
answers["codecs"] = QStringDecoder.availableCodecs()
for name, text in [("tr_TR", "istanbul ı"), ("de_DE", "straße"), ("el_GR", "άλφα")]:
    answers["upper " + name] = QLocale(name).toUpper(text)
with open("/proc/self/maps", encoding="utf-8") as maps:
    loaded = {line.split()[-1] for line in maps if "libicudata" in line}
json.dump({"answers": answers, "libicudata": sorted(loaded)}, sys.stdout, ensure_ascii=False)
"""


def _icu_data() -> ModuleType:
    spec = importlib.util.spec_from_file_location("icu_data", ROOT / "packaging" / "icu_data.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def icu_data() -> ModuleType:
    return _icu_data()


@pytest.fixture(scope="module")
def pyside_icudata() -> Path:
    """PySide6's own libicudata.so.NN, all of its data."""
    qtcore = importlib.util.find_spec("PySide6.QtCore")
    assert qtcore is not None and qtcore.origin
    found = sorted((Path(qtcore.origin).parent / "Qt" / "lib").glob("libicudata.so.*"))
    if not found:
        pytest.skip("this PySide6 links no ICU")
    return found[-1]


def probe(library_dir: Path | None) -> dict[str, object]:
    """The probe's answers and the libicudata it loaded (from `library_dir` when given)."""
    env = dict(os.environ)
    if library_dir is not None:
        env["LD_LIBRARY_PATH"] = str(library_dir)  # ahead of libicuuc's $ORIGIN runpath
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_a_package_is_rewritten_byte_for_byte(icu_data: ModuleType, pyside_icudata: Path) -> None:
    symbol, whole = icu_data.exported_package(pyside_icudata)
    header, entries = icu_data.items(whole)
    assert symbol.startswith("icudt") and len(entries) > 1000
    assert icu_data.package(header, entries) == whole


def test_what_is_kept(icu_data: ModuleType) -> None:
    for name in ("coll/de.res", "coll/ucadata.icu", "zone/de.res", "de.res", "metaZones.res"):
        assert icu_data.kept("icudt73l/" + name), name
    for name in ("brkitr/de.res", "curr/de.res", "lang/de.res", "unames.icu", "rfc3491.spp"):
        assert not icu_data.kept("icudt73l/" + name), name
    assert icu_data.kept("icudt73l/ibm-37_P100-1995.cnv")


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler (cc)")
def test_qt_answers_the_same_with_the_trimmed_data(
    icu_data: ModuleType, pyside_icudata: Path, tmp_path: Path
) -> None:
    trimmed = icu_data.trimmed_library(pyside_icudata, tmp_path)
    assert trimmed.name == pyside_icudata.name
    assert trimmed.stat().st_size < pyside_icudata.stat().st_size * 0.6
    names = [name for name, _data in icu_data.items(icu_data.exported_package(trimmed)[1])[1]]
    assert names and all(icu_data.kept(name) for name in names)

    full, small = probe(None), probe(tmp_path)
    assert full["libicudata"] == [str(pyside_icudata.resolve())]
    assert small["libicudata"] == [str(trimmed.resolve())]
    assert small["answers"] == full["answers"]
