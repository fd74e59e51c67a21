"""The window's words in the person's language: Qt translators, and the catalogue they come from.

Every string the window shows passes through Qt's translation: `self.tr("…")` inside a
QObject, `translate("Context", "…")` (QCoreApplication.translate) elsewhere, counts as
`tr("%Ln memories", "", n)` so each language chooses its plural forms (and writes the
number its way: 1,204 in English, 1.204 in German), and values placed
with `.format(name=…)` after translation so a translator can move them. A translation is a
Qt Linguist file: `python -m memory_app.gui.translations FILE.ts` collects (or updates) the
catalogue from the sources with `pyside6-lupdate`; `pyside6-lrelease` compiles it to
`resources/translations/memory_app_<locale>.qm`, which the window loads at start for the
system locale (LANGUAGE, LC_ALL, LC_MESSAGES, LANG), with Qt's own strings for its dialogs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from memory_app.assets import AssetMissingError, asset_path

CATALOGUE = "memory_app"
GUI_SOURCES = Path(__file__).resolve().parent

translate = QCoreApplication.translate


def install_translators(app: QCoreApplication, locale: QLocale | None = None) -> list[QTranslator]:
    """Load the app's translation for `locale` (the system's by default) into `app`, with
    Qt's for the same language, over the English plural forms; returns those installed."""
    locale = locale or QLocale.system()
    loaded: list[QTranslator] = []
    try:
        ours = str(asset_path("resources/translations"))
    except AssetMissingError:
        return loaded  # an installation without the catalogue: plain English
    english = QTranslator(app)
    if english.load(QLocale(QLocale.Language.English), CATALOGUE, "_", ours):
        app.installTranslator(english)  # the plural forms ("1 memory") all fall back to
        loaded.append(english)
    own = QTranslator(app)
    if locale.language() == QLocale.Language.English or not own.load(locale, CATALOGUE, "_", ours):
        return loaded  # English, or a language without a translation: all English
    # Qt's words for its own dialogs in the same language (installed last: asked first),
    # never beside English ones, so a window is in one language or the other.
    qt_words = QTranslator(app)
    qt_folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    if qt_words.load(locale, "qtbase", "_", qt_folder):
        app.installTranslator(qt_words)
        loaded.append(qt_words)
    app.installTranslator(own)
    loaded.append(own)
    return loaded


def sources() -> list[Path]:
    """Every Python file of the window and its Designer forms, in a stable order (the
    catalogue's input). The forms are read from the .ui files: lupdate skips the `u"…"`
    literals of the Python that uic makes from them."""
    forms = asset_path("ui")
    return sorted(GUI_SOURCES.rglob("*.py")) + sorted(forms.glob("*.ui"))


def lupdate_program() -> str:
    """PySide6's lupdate, installed beside this interpreter."""
    return str(Path(sys.executable).with_name("pyside6-lupdate"))


def lrelease_program() -> str:
    return str(Path(sys.executable).with_name("pyside6-lrelease"))


def update_catalogue(target: Path, *options: str) -> str:
    """Collect the window's strings into the Qt Linguist file `target` (kept translations
    stay); returns lupdate's report. Written beside and then moved, so a reader never
    sees half a file."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, scratch_name = tempfile.mkstemp(suffix=".ts", dir=target.parent)
    os.close(handle)
    scratch = Path(scratch_name)
    try:
        if target.exists():
            shutil.copyfile(target, scratch)
        else:
            scratch.unlink()
        command = [lupdate_program(), *map(str, sources()), "-no-obsolete", *options]
        done = subprocess.run(
            [*command, "-ts", str(scratch)], capture_output=True, text=True, check=True
        )
        os.replace(scratch, target)
    finally:
        scratch.unlink(missing_ok=True)
    return done.stdout + done.stderr


# English needs a translation only for its plural forms: "%Ln memories" is the source, the
# catalogue adds "%Ln memory" for one.
ENGLISH = "resources/translations/memory_app_en"
_AGREEING = {"were": "was", "are": "is", "have": "has"}
_NOT_PLURAL = {"is", "was", "has", "does", "this", "its", "his", "us", "always", "unless",
               "across", "plus", "less", "yes", "as"}  # fmt: skip


def singular(plural: str) -> str:
    """A first guess at the English singular of a counted phrase: the first plural-looking
    word within four after the count (%n or %Ln; acronyms such as AWS skipped) loses its
    ending, and a "were", "are" or "have" right after it agrees. A person reads the
    catalogue's diff."""

    def one(word: str) -> str:
        if word.endswith("ies"):
            return word[:-3] + "y"
        if re.search(r"(ch|sh|ss|x)es$", word):
            return word[:-2]
        return word[:-1]

    words = plural.split(" ")
    counted = next((i for i, word in enumerate(words) if re.search("%L?n", word)), None)
    if counted is None:
        return plural
    for i in range(counted + 1, min(counted + 5, len(words))):
        found = re.match(r"([A-Za-z-]*[a-z])(s)(\W*)$", words[i])
        if found and not words[i].endswith("ss") and found.group(1) + "s" not in _NOT_PLURAL:
            words[i] = one(found.group(1) + "s") + found.group(3)
            if i + 1 < len(words) and words[i + 1] in _AGREEING:
                words[i + 1] = _AGREEING[words[i + 1]]
            break
    return " ".join(words)


def update_english(root: Path) -> str:
    """Bring `memory_app_en.ts` up to date with the sources (plural forms only), guess the
    singular of new phrases, and compile it to `memory_app_en.qm`; returns the report."""
    source = root / f"{ENGLISH}.ts"
    report = update_catalogue(
        source, "-pluralonly", "-locations", "none", "-source-language", "en",
        "-target-language", "en",
    )  # fmt: skip
    tree = ET.parse(source)
    guessed = 0
    for message in tree.iter("message"):
        translation = message.find("translation")
        text = message.findtext("source") or ""
        if translation is None or translation.get("type") != "unfinished":
            continue
        forms = translation.findall("numerusform")
        if len(forms) == 2:
            forms[0].text, forms[1].text = singular(text), text
            del translation.attrib["type"]
            guessed += 1
    ET.indent(tree, space="    ")
    body = ET.tostring(tree.getroot(), encoding="unicode")
    source.write_text(f'<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n{body}\n')
    compiled = subprocess.run(
        [lrelease_program(), str(source), "-qm", str(root / f"{ENGLISH}.qm")],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return f"{report}{guessed} singular forms guessed: read them in {source.name}\n" + (
        compiled.stdout
    )


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--english"]:
        print(update_english(GUI_SOURCES.parents[1]), end="")
        return 0
    if len(args) != 1 or not args[0].endswith(".ts"):
        print("usage: python -m memory_app.gui.translations (FILE.ts | --english)", file=sys.stderr)
        return 2
    print(update_catalogue(Path(args[0])), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
