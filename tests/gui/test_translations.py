"""A translation reaches every word the window shows, and English says "1 memory".

The catalogue is collected from the sources by the documented command
(`python -m memory_app.gui.translations FILE.ts`, which runs pyside6-lupdate). Every
message is then given a pseudo-translation (‹the English›, placeholders kept), compiled
with pyside6-lrelease and installed, and the main window is built on a fresh store: each
view's labels, buttons, menus, tabs, placeholders, tooltips and headers must show the
pseudo-translation. A text that stayed English was never passed through tr(), or was
translated in a context lupdate did not see, and would stay English in every language.

The English catalogue (the plural forms) must be what `make translations` makes from the
current sources, compiled, so a counted phrase added without it reads "1 memories".
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QLocale, Qt, QTranslator
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QGroupBox,
    QLabel,
    QLineEdit,
    QMenu,
    QTableView,
    QTabWidget,
    QTreeView,
    QWidget,
)

from memory_app.domain.records import ITEM_STATUSES, ItemQuery
from memory_app.gui.app import build_main_window
from memory_app.gui.context import AppContext
from memory_app.gui.main_window import MainWindow
from memory_app.gui.translations import (
    ENGLISH,
    install_translators,
    lrelease_program,
    update_english,
)
from tests.small_store import build_small_store

ROOT = Path(__file__).resolve().parents[2]
OPEN, CLOSE = "‹", "›"
WORDS = re.compile(r"[A-Za-z]{2,}")
TAGS = re.compile(r"<[^>]+>|&[a-z]+;")


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The documented command, run as written: the window's strings in a .ts file."""
    target = tmp_path_factory.mktemp("catalogue") / "memory_app_xx.ts"
    done = subprocess.run(
        [sys.executable, "-m", "memory_app.gui.translations", str(target)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert "warning" not in (done.stdout + done.stderr).lower(), done.stdout + done.stderr
    return target


def pseudo_translate(catalogue: Path, out: Path) -> Path:
    """Every message wrapped in ‹›, compiled to a .qm file."""
    tree = ET.parse(catalogue)
    for message in tree.iter("message"):
        source = message.findtext("source") or ""
        translation = message.find("translation")
        assert translation is not None
        translation.attrib.pop("type", None)
        forms = translation.findall("numerusform")
        for form in forms:
            form.text = f"{OPEN}{source}{CLOSE}"
        if not forms:
            translation.text = f"{OPEN}{source}{CLOSE}"
    pseudo = out / "pseudo.ts"
    tree.write(pseudo, encoding="utf-8", xml_declaration=True)
    compiled = out / "pseudo.qm"
    subprocess.run(
        [lrelease_program(), str(pseudo), "-qm", str(compiled)], check=True, capture_output=True
    )
    return compiled


def test_the_catalogue_holds_the_windows_words(catalogue: Path) -> None:
    sources = [m.findtext("source") or "" for m in ET.parse(catalogue).iter("message")]
    assert len(sources) > 600
    # The main window's, a view's, and a Designer form's (read from ui/*.ui).
    for phrase in ("Import &Files…", "Recent activity", "&Importance:"):
        assert any(phrase in source for source in sources), phrase
    # Counted phrases are Qt plural forms, never English glued around a number.
    # Written the locale's way: %Ln is 1,204 in English, 1.204 in German.
    assert sum("%Ln" in source for source in sources) > 20
    assert not [source for source in sources if "%n" in source]


@pytest.fixture
def pseudo(qapp: QApplication, catalogue: Path, tmp_path: Path) -> Iterator[QTranslator]:
    translator = QTranslator()
    assert translator.load(str(pseudo_translate(catalogue, tmp_path)))
    qapp.installTranslator(translator)
    yield translator
    qapp.removeTranslator(translator)


def shown_texts(root: QWidget) -> Iterator[tuple[str, str]]:
    """(where, text) for every word a person can read in `root` and its children."""

    def named(widget: QWidget) -> str:
        return f"{type(widget).__name__}#{widget.objectName() or '?'}"

    widgets = [root, *root.findChildren(QWidget)]
    for widget in widgets:
        where = named(widget)
        if widget.toolTip():
            yield f"{where} tooltip", widget.toolTip()
        if isinstance(widget, QLabel | QAbstractButton):
            yield where, widget.text()
        elif isinstance(widget, QGroupBox):
            yield where, widget.title()
        elif isinstance(widget, QLineEdit):
            yield f"{where} placeholder", widget.placeholderText()
        elif isinstance(widget, QTabWidget):
            for index in range(widget.count()):
                yield f"{where} tab {index}", widget.tabText(index)
        elif isinstance(widget, QTableView | QTreeView) and widget.model() is not None:
            model = widget.model()
            header_view = (
                widget.header() if isinstance(widget, QTreeView) else (widget.horizontalHeader())
            )
            for column in range(header_view.count()):
                header = model.headerData(column, Qt.Orientation.Horizontal)
                if isinstance(header, str):
                    yield f"{where} column {column}", header
        for action in widget.actions():
            yield f"{where} action", action.text()
            # Qt derives a tooltip from the text ("&Import Files…" → "Import Files").
            if action.toolTip() != action.text().replace("&", "").rstrip("…."):
                yield f"{where} action tooltip", action.toolTip()
        if isinstance(widget, QMenu):
            yield f"{where} menu", widget.title()


INNERMOST = re.compile(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}")
PATHS = re.compile(r"\S*[/\\]\S*")


def untranslated(
    root: QWidget, data: set[str], data_words: frozenset[str] = frozenset()
) -> list[str]:
    """Texts with English words outside the pseudo-translation: `data` (whole texts such
    as category names), `data_words` (the words of memories) and paths are kept as they
    are in every language."""
    left: list[str] = []
    for where, text in shown_texts(root):
        if text in data:
            continue
        outside = TAGS.sub(" ", text)
        while INNERMOST.search(outside):  # a translated sentence may hold translated words
            outside = INNERMOST.sub(" ", outside)
        outside = PATHS.sub(" ", outside)
        words = [w for w in WORDS.findall(outside) if not _is_data(w) and w not in data_words]
        if words:
            left.append(f"{where}: {text!r}")
    return sorted(set(left))


def _is_data(word: str) -> bool:
    """Words a translation keeps: the product's and programs' names, file names, keys."""
    return word in {"Memory", "Curator", "Claude", "Code", "CLAUDE", "md", "MCP", "Ctrl",
                    "Shift", "Alt", "Del", "Esc", "PgUp", "PgDown", "Tab", "Return", "Enter",
                    "Space", "Backspace", "Up", "Down", "Left", "Right", "Home", "End",
                    "Ins", "Meta", "API", "JSON", "Anthropic", "SQLite", "KB", "MB", "GB",
                    "ms"}  # fmt: skip


@pytest.fixture
def window(
    qtbot, context: AppContext, settle: Callable[..., None], pseudo: QTranslator
) -> MainWindow:
    main = build_main_window(context)
    qtbot.addWidget(main)
    main.show()
    settle()
    return main


def test_every_view_shows_the_translation(window: MainWindow, settle: Callable[..., None]) -> None:
    # Category names are data (seed 000): a person names and renames them.
    data = {category.name for category in window.context.service.categories()}
    problems: list[str] = []
    problems += untranslated(window.menuBar(), data)
    for view in window.views:
        window.navigate(view.key)
        settle()
        problems += [f"{view.key}: {p}" for p in untranslated(view, data)]
    problems += [f"status bar: {p}" for p in untranslated(window.statusBar(), data)]
    assert problems == [], "\n".join(problems)


def test_english_plural_catalogue_is_current_and_compiled(tmp_path: Path) -> None:
    """What `make translations` would write from today's sources is what is committed."""
    committed_ts = ROOT / f"{ENGLISH}.ts"
    committed_qm = ROOT / f"{ENGLISH}.qm"
    copy = tmp_path / f"{ENGLISH}.ts"
    copy.parent.mkdir(parents=True)
    shutil.copyfile(committed_ts, copy)
    report = update_english(tmp_path)
    assert "0 singular forms guessed" in report, "run `make translations` and read the diff"
    assert copy.read_text(encoding="utf-8") == committed_ts.read_text(encoding="utf-8")
    assert (tmp_path / f"{ENGLISH}.qm").read_bytes() == committed_qm.read_bytes()
    messages = list(ET.parse(committed_ts).iter("message"))
    assert len(messages) > 20
    for message in messages:
        forms = [f.text or "" for f in message.iter("numerusform")]
        source = message.findtext("source") or ""
        assert len(forms) == 2 and forms[1] == source and forms[0], source


def test_english_counts_say_one_memory() -> None:
    """The app (and these tests, tests/gui/conftest.py) load the English plural forms."""
    messages = ET.parse(ROOT / f"{ENGLISH}.ts").getroot()
    context = messages.find("context")
    assert context is not None
    name = context.findtext("name") or ""
    message = context.find("message")
    assert message is not None
    source = message.findtext("source") or ""
    one = QCoreApplication.translate(name, source, None, 1)
    many = QCoreApplication.translate(name, source, None, 3)
    assert "%Ln" not in one and "1" in one and one != source.replace("%Ln", "1")
    assert many == source.replace("%Ln", "3")


def test_counts_are_written_the_locales_way() -> None:
    before = QLocale()
    try:
        for locale, written in (("en_US", "1,204"), ("de_DE", "1.204")):
            QLocale.setDefault(QLocale(locale))
            shown = QCoreApplication.translate(
                "MainWindow", "Undid the last change to %Ln memories.", None, 1204
            )
            assert shown == f"Undid the last change to {written} memories."
    finally:
        QLocale.setDefault(before)


def test_a_store_with_memories_shows_the_translation_too(
    qtbot, context: AppContext, settle: Callable[..., None], pseudo: QTranslator
) -> None:
    """Counts, dates, cards and lists built from data: their words are translated, the
    data (memories, titles, categories, projects) is not."""
    build_small_store(context.service)
    window = build_main_window(context)
    qtbot.addWidget(window)
    window.show()
    settle()
    service = context.service
    data = {category.name for category in service.categories()}
    texts = [item.content for item in service.query_items(ItemQuery(statuses=ITEM_STATUSES))]
    texts += [category.name.lower() for category in service.categories()]
    words = frozenset(word for text in texts for word in WORDS.findall(text))
    problems: list[str] = []
    for view in window.views:
        window.navigate(view.key)
        settle()
        problems += [f"{view.key}: {p}" for p in untranslated(view, data, words)]
    problems += [f"status bar: {p}" for p in untranslated(window.statusBar(), data, words)]
    assert problems == [], "\n".join(problems)


def test_a_language_without_a_translation_stays_all_english(qapp: QApplication) -> None:
    """Without memory_app_de.qm a German desktop gets the English window, Qt's dialogs
    included, not a mixture; English gets its plural forms only."""
    for locale in (QLocale("de_DE"), QLocale("en_GB")):
        loaded = install_translators(qapp, locale)
        try:
            assert [Path(t.filePath()).name for t in loaded] == ["memory_app_en.qm"]
        finally:
            for translator in loaded:
                qapp.removeTranslator(translator)
