"""The window's words can be translated: no literal text reaches a widget without `tr()`.

Reads each module of `memory_app/gui` (the generated forms excepted: uic already routes
their text through QCoreApplication.translate) and finds the calls that put text on
screen (setText, setToolTip, QLabel(...), QMessageBox.warning(...), addAction, ...). Their
text must be the result of `self.tr(...)`/`translate(...)` or a variable, never a literal
or an f-string. And every `tr`/`translate` call must have a literal source text (with
named `{placeholders}` filled by `.format` afterwards) or a value marked with
QT_TRANSLATE_NOOP, or lupdate cannot collect it; a counted phrase is `self.tr(text, "", n)`,
since lupdate keeps translate()'s count only when it is a literal number.

The runtime side (the catalogue collected by lupdate really covers what the window shows,
and a translation is used) is tests/gui/test_translations.py.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

GUI = Path(__file__).resolve().parents[2] / "memory_app" / "gui"

# Calls whose first text argument is shown to a person.
SHOWS_TEXT = {
    # setters
    "setText", "setToolTip", "setStatusTip", "setWhatsThis", "setWindowTitle",
    "setPlaceholderText", "setTitle", "setAccessibleName", "setAccessibleDescription",
    "showMessage", "show_message", "setHeaderLabels", "setHorizontalHeaderLabels",
    "addTab", "insertTab", "setTabText", "setTabToolTip", "addAction", "addMenu",
    "addItem", "addItems", "insertItem", "setItemText", "setLabelText", "setButtonText",
    "setInformativeText", "setDetailedText", "setCancelButtonText", "setOkButtonText",
    "setSuffix", "setPrefix", "setSpecialValueText", "setHtml", "setMarkdown", "addRow",
    "addButton", "setToolTipDuration",
    # widgets built with their text
    "QLabel", "QPushButton", "QToolButton", "QCheckBox", "QRadioButton", "QGroupBox",
    "QAction", "QMenu", "QCommandLinkButton", "QListWidgetItem", "QStandardItem",
    "QTableWidgetItem", "StatCard", "EmptyState",
}  # fmt: skip
# Dialogs whose every text argument is shown (title, text, label...).
DIALOGS = {"information", "warning", "critical", "question", "about", "getText", "getItem",
           "getInt", "getDouble", "getMultiLineText"}  # fmt: skip
TRANSLATORS = {"tr", "translate", "QT_TRANSLATE_NOOP", "QT_TR_NOOP"}
WORDS = re.compile(r"[A-Za-z]{2,}")
TAGS = re.compile(r"</?[a-z]+[^>]*>|&[a-z]+;")


def _name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def _collectable(node: ast.AST) -> bool:
    """A source text lupdate collects (a literal), or a value marked with
    QT_TRANSLATE_NOOP where it was written (a name, attribute or item)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    return isinstance(node, ast.Name | ast.Attribute | ast.Subscript)


def _literal_text(node: ast.AST) -> bool:
    """A literal a person would read: a string with words (outside HTML tags), an
    f-string, or text joined onto a value with `+` or `%`."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and WORDS.search(TAGS.sub("", node.value)) is not None
    if isinstance(node, ast.JoinedStr):
        return any(_literal_text(part) for part in node.values if isinstance(part, ast.Constant))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mod):
        return _literal_text(node.left) or _literal_text(node.right)
    if isinstance(node, ast.Call) and _name(node) == "format":
        owner = node.func.value if isinstance(node.func, ast.Attribute) else None
        return owner is not None and _literal_text(owner)
    if isinstance(node, ast.IfExp):
        return _literal_text(node.body) or _literal_text(node.orelse)
    return False


def _problems(source: str, name_of_file: str) -> list[str]:
    tree = ast.parse(source)
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):  # lupdate does not read inside f-strings
            for inner in ast.walk(node):
                if isinstance(inner, ast.Call) and _name(inner) in TRANSLATORS:
                    where = f"{name_of_file}:{inner.lineno}"
                    found.append(f"{where}: {_name(inner)}() inside an f-string is never collected")
        if not isinstance(node, ast.Call):
            continue
        name = _name(node)
        where = f"{name_of_file}:{node.lineno}"
        if name in TRANSLATORS:
            text_at = 1 if name in {"translate", "QT_TRANSLATE_NOOP"} else 0
            if len(node.args) <= text_at or not _collectable(node.args[text_at]):
                found.append(f"{where}: {name}() needs a literal source text")
            if name == "translate" and (
                len(node.args) > 3 or any(kw.arg == "n" for kw in node.keywords)
            ):
                # lupdate reads translate()'s count only as a literal: a variable makes
                # the phrase singular-only, an expression drops it from the catalogue.
                found.append(f"{where}: count a phrase with self.tr(text, '', n) in a QObject")
            if name in {"translate", "QT_TRANSLATE_NOOP"} and not (
                node.args and isinstance(node.args[0], ast.Constant)
            ):
                found.append(f"{where}: {name}() needs a literal context")
            continue
        if name in DIALOGS:
            shown = list(node.args[1:])
        elif name == "addItem":  # addItem(text, data) or addItem(icon, text, data)
            shown = node.args[1:2] if len(node.args) >= 3 else node.args[:1]
        elif name == "insertItem":  # insertItem(row, text, data) or (row, icon, text, data)
            shown = node.args[2:3] if len(node.args) >= 4 else node.args[1:2]
        elif name in SHOWS_TEXT:
            shown = [arg for arg in node.args if not isinstance(arg, ast.Starred)][:2]
        else:
            continue
        shown += [kw.value for kw in node.keywords if kw.arg in {"text", "title", "toolTip"}]
        for argument in shown:
            if _literal_text(argument):
                found.append(f"{where}: {name}() shows text that does not pass through tr()")
    return found


def _modules() -> list[Path]:
    return sorted(p for p in GUI.rglob("*.py") if "forms" not in p.relative_to(GUI).parts)


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(GUI)))
def test_text_shown_by_the_module_passes_through_tr(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    assert _problems(source, str(path.relative_to(GUI.parent.parent))) == []


def test_the_check_finds_literal_text() -> None:
    """The checker itself: each way of showing untranslated text is caught, and the
    translated forms pass."""
    source = (
        "def build(self, n, label, box):\n"
        "    label.setText('Import files')\n"  # 2: literal
        "    label.setToolTip(f'{n} files imported')\n"  # 3: f-string
        "    QLabel('Total: ' + str(n), self)\n"  # 4: joined
        "    QMessageBox.warning(self, self.tr('Title'), 'Plain words')\n"  # 5: dialog text
        "    self.tr(f'{n} memories')\n"  # 6: tr of an f-string
        "    translate(context, 'Words')\n"  # 7: context not literal
        "    translate('Ctx', '%n words', None, n)\n"  # 8: lupdate loses the count
        "    label.setToolTip(f'<ul><li>{n}</li></ul>')\n"  # fine: markup only
        "    label.setText(translate('Ctx', CAPTIONS[n]))\n"  # fine: marked where written
        "    label.setText(f'<b>{self.tr(\"Links\")}</b>')\n"  # 11: lupdate skips f-strings
        "    label.setText(self.tr('Import {n} files').format(n=n))\n"  # fine
        "    box.addItem(self.tr('Project'), 'project')\n"  # fine: data is not shown
        "    label.setText(self.tr('%n memories', '', n))\n"  # fine
        "    label.setText('—')\n"  # fine: no words
    )
    lines = sorted(int(problem.split(":")[1]) for problem in _problems(source, "probe.py"))
    assert lines == [2, 3, 4, 5, 6, 7, 8, 11]
