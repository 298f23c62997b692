"""Every package Sightline's own code imports is declared in pyproject.toml: one that only
arrives with another (pydantic with the ACP SDK) may leave with that one's next release."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OWN = {"app", "routing", "vision", "resources", "benchmarks", "tests"}


def _name(requirement: str) -> str:
    """A requirement's distribution name, normalized (PEP 503)."""
    found = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement.strip())
    assert found, requirement
    return re.sub(r"[-_.]+", "-", found.group(0)).lower()


def _imported() -> dict[str, set[str]]:
    """Each third-party top-level module the shipped code imports, with where."""
    found: dict[str, set[str]] = {}
    for package in ("app", "routing", "vision", "resources"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.partition(".")[0]
                    if top not in OWN and top not in sys.stdlib_module_names:
                        found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_imported_package_is_declared() -> None:
    with open(ROOT / "pyproject.toml", "rb") as handle:
        declared = {_name(r) for r in tomllib.load(handle)["project"]["dependencies"]}
    distributions = importlib.metadata.packages_distributions()
    imported = _imported()
    assert "pydantic" in imported and "PySide6" in imported  # the walk finds imports at all
    undeclared = {
        module: sorted(where)[:3]
        for module, where in imported.items()
        if not {_name(d) for d in distributions.get(module, [module])} & declared
    }
    assert undeclared == {}
