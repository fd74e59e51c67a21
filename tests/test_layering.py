"""The import direction of ARCHITECTURE.md: gui → service → core, never back."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "memory_app"
QT_MODULES = ("PySide6", "shiboken6", "qasync")
NOT_IN_DOMAIN = ("sqlalchemy", "sqlmodel", "anthropic", "httpx", "httpx2", "socket", "requests")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def sources(under: Path) -> list[Path]:
    return sorted(under.rglob("*.py"))


def test_the_package_has_sources() -> None:
    assert len(sources(PACKAGE)) > 20


@pytest.mark.parametrize("path", sources(PACKAGE), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_qt_only_inside_gui(path: Path) -> None:
    if PACKAGE / "gui" in path.parents:
        return
    leaks = {m for m in imported_modules(path) if m.split(".")[0] in QT_MODULES}
    assert not leaks, f"{path.relative_to(PACKAGE)} imports {leaks}: Qt belongs in memory_app/gui/"


@pytest.mark.parametrize(
    "path", sources(PACKAGE / "domain"), ids=lambda p: str(p.relative_to(PACKAGE))
)
def test_domain_is_pure(path: Path) -> None:
    leaks = {m for m in imported_modules(path) if m.split(".")[0] in NOT_IN_DOMAIN}
    inner = {
        m
        for m in imported_modules(path)
        if m.startswith("memory_app.") and not m.startswith("memory_app.domain")
    }
    assert not leaks, f"domain module imports {leaks}"
    assert not inner, f"domain module reaches outwards into {inner}"


@pytest.mark.parametrize(
    "path",
    [p for p in sources(PACKAGE) if p.parent.name in ("store", "domain", "ingest", "extract")],
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_core_does_not_import_service_or_front_ends(path: Path) -> None:
    upward = {
        m
        for m in imported_modules(path)
        if m in ("memory_app.service", "memory_app.cli") or m.startswith("memory_app.gui")
    }
    assert not upward, f"{path.relative_to(PACKAGE)} imports {upward}"
