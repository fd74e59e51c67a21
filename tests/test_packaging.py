"""The built wheel carries ui/ and resources/ and finds them once installed."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from memory_app.config import APP_ID

ROOT = Path(__file__).resolve().parents[1]

CHECK = """
import sys
from pathlib import Path
import memory_app
from memory_app.assets import APP_ICON_NAME, asset_path, icon_path
from PySide6.QtWidgets import QApplication, QWidget
from PySide6.QtGui import QIcon
from memory_app.gui.forms.ui_settings_view import Ui_SettingsForm

package = Path(memory_app.__file__).resolve().parent
assert "site-packages" in str(package), package
icon = icon_path(APP_ICON_NAME)
form = asset_path("ui/memory_editor.ui")
assert package in icon.parents and package in form.parents, (icon, form)
app = QApplication([])
assert not QIcon(str(icon)).isNull()
widget = QWidget()
Ui_SettingsForm().setupUi(widget)
print("ok", icon.relative_to(package), form.relative_to(package))
"""


@pytest.mark.slow
def test_wheel_installs_and_loads_a_form_and_an_icon(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(wheels),
            str(ROOT),
        ],
        check=True,
    )
    (wheel,) = wheels.glob("memory_curator-*.whl")
    archive = zipfile.ZipFile(wheel)
    names = archive.namelist()
    assert f"memory_app/_data/resources/icons/hicolor/scalable/apps/{APP_ID}.svg" in names
    assert f"memory_app/_data/resources/icons/hicolor/16x16/apps/{APP_ID}.png" in names
    assert f"memory_app/_data/resources/{APP_ID}.desktop" in names
    assert f"memory_app/_data/resources/{APP_ID}.metainfo.xml" in names
    # The English plural forms ("1 memory"), compiled.
    assert "memory_app/_data/resources/translations/memory_app_en.qm" in names
    # The licence the metadata names ships with it, and the window has its gui-script.
    (license_file,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
    assert archive.read(license_file) == (ROOT / "LICENSE").read_bytes()
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    scripts = archive.read(entry_points).decode()
    assert "[gui_scripts]\nmemory-curator = memory_app.gui_script:main" in scripts, scripts
    assert "[console_scripts]\nmemory-app = memory_app.cli:main" in scripts, scripts
    assert "memory_app/_data/ui/memory_editor.ui" in names
    assert "memory_app/gui/forms/ui_settings_view.py" in names

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    # Dependencies come from the development environment (no download); the package
    # itself only from the wheel: its own site-packages precede the added path.
    site = Path(
        subprocess.check_output(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            text=True,
        ).strip()
    )
    (site / "dev_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True)
    result = subprocess.run(
        [str(python), "-c", CHECK],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(
        f"ok _data/resources/icons/hicolor/scalable/apps/{APP_ID}.svg _data/ui/"
    )

    # The installed launcher puts the app in the menu, pointing at itself.
    share = tmp_path / "share"
    launcher = venv / "bin" / "memory-app"
    result = subprocess.run(
        [str(launcher), "desktop", "install", "--data-home", str(share)],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert result.returncode == 0, result.stderr
    entry = (share / "applications" / f"{APP_ID}.desktop").read_text()
    assert f'Exec="{launcher.absolute()}"' in entry.splitlines()
    assert (share / f"icons/hicolor/512x512/apps/{APP_ID}.png").is_file()
    assert (venv / "bin" / "memory-curator").is_file()  # the gui-script
