from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from memory_app.domain.claude_md import BEGIN_MARKER, END_MARKER, BlockLine, render_block
from memory_app.retrieval import export_file
from memory_app.retrieval.export_file import (
    MAX_FILE_BYTES,
    ExportError,
    ExportPlan,
    FileChange,
    FileText,
    apply_export,
    plan_export,
    read_text_file,
    write_atomically,
    write_together,
)

POSIX = pytest.mark.skipif(os.name != "posix", reason="permission bits are POSIX")


def block(*ids: int) -> str:
    return render_block([BlockLine(i, "project_conventions", f"rule {i}") for i in ids]).text


def export(target: Path, text: str, *, via: Path | None = None) -> ExportPlan:
    plan = plan_export(target, text, via=via)
    apply_export(plan)
    return plan


def files_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# --- reading -------------------------------------------------------------------------------


def test_a_missing_file_reads_as_none(tmp_path: Path) -> None:
    assert read_text_file(tmp_path / "CLAUDE.md") is None
    assert read_text_file(tmp_path / "no" / "CLAUDE.md") is None


def test_text_is_read_exactly_with_its_newlines(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_bytes("a\r\nb\nç".encode())
    assert read_text_file(path) == FileText("a\r\nb\nç", bom=False)


def test_a_byte_order_mark_is_reported_not_returned(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_bytes(b"\xef\xbb\xbf# Title\n")
    assert read_text_file(path) == FileText("# Title\n", bom=True)


def test_a_file_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_bytes(b"caf\xe9\n")
    with pytest.raises(ExportError, match=r"CLAUDE\.md is not UTF-8.*nothing was changed"):
        read_text_file(path)


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="is a folder"):
        read_text_file(tmp_path)


def test_a_huge_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.md"
    path.write_bytes(b"x" * (MAX_FILE_BYTES + 1))
    with pytest.raises(ExportError, match=r"not a CLAUDE\.md"):
        read_text_file(path)
    path.write_bytes(b"x" * MAX_FILE_BYTES)
    assert read_text_file(path) is not None


# --- writing -------------------------------------------------------------------------------


def test_writing_keeps_the_text_exactly(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    write_atomically(path, "a\r\nb\nc\rç")
    assert path.read_bytes() == "a\r\nb\nc\rç".encode()
    write_atomically(path, "new")
    assert path.read_bytes() == b"new"
    assert files_in(tmp_path) == ["CLAUDE.md"]


def test_writing_with_a_bom_puts_it_first(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    write_atomically(path, "x\n", bom=True)
    assert path.read_bytes() == b"\xef\xbb\xbfx\n"


@POSIX
def test_writing_keeps_the_permission_bits(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_text("old")
    path.chmod(0o640)
    write_atomically(path, "new")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    path.chmod(0o755)
    write_atomically(path, "newer")
    assert stat.S_IMODE(path.stat().st_mode) == 0o755


@POSIX
def test_a_new_file_gets_the_usual_permissions_not_the_temp_files(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    write_atomically(path, "new")
    reference = tmp_path / "reference"
    reference.write_text("x")  # what a plain open() gives under the current umask
    assert stat.S_IMODE(path.stat().st_mode) == stat.S_IMODE(reference.stat().st_mode)


def test_a_missing_folder_is_not_created(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="does not exist"):
        write_atomically(tmp_path / "typo" / "CLAUDE.md", "x")
    assert files_in(tmp_path) == []


def test_writing_over_a_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").mkdir()
    with pytest.raises(ExportError, match="is a folder"):
        write_atomically(tmp_path / "CLAUDE.md", "x")


@pytest.mark.parametrize("failing", ["fsync", "replace", "chmod"])
def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_bytes(b"old\r\n")

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(export_file.os, failing, broken)
    with pytest.raises(ExportError, match="not changed"):
        write_atomically(path, "new")
    monkeypatch.undo()
    assert path.read_bytes() == b"old\r\n"
    assert files_in(tmp_path) == ["CLAUDE.md"]


@POSIX
def test_a_symbolic_link_stays_a_link(tmp_path: Path) -> None:
    real = tmp_path / "AGENTS.md"
    real.write_text("old")
    link = tmp_path / "CLAUDE.md"
    link.symlink_to(real.name)
    write_atomically(link, "new")
    assert link.is_symlink()
    assert real.read_text() == "new"


# --- planning and applying -----------------------------------------------------------------


def test_the_first_export_creates_the_file(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    plan = export(path, block(1))
    assert plan.old is None and plan.changed
    assert path.read_text() == block(1) + "\n"
    assert "+++ b/CLAUDE.md" in plan.diff()


def test_the_second_export_replaces_the_block_and_keeps_the_persons_text(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    before = "# Project\n\nRun `make test` before pushing.   \n"
    after = "\n## Written later by hand\n\n\tkeep\u00a0this"
    path.write_text(before)
    export(path, block(1))
    path.write_bytes(path.read_bytes() + after.encode())
    plan = export(path, block(2, 3))
    assert path.read_text() == before + "\n" + block(2, 3) + "\n" + after
    assert "-- rule 1" in plan.diff() and "+- rule 2" in plan.diff()


def test_an_unchanged_export_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "CLAUDE.md"
    export(path, block(1))
    plan = plan_export(path, block(1))
    assert not plan.changed
    assert plan.diff() == ""
    written: list[Path] = []
    monkeypatch.setattr(export_file, "write_atomically", lambda p, *a, **k: written.append(p))
    apply_export(plan)
    assert written == []


def test_crlf_files_stay_crlf(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_bytes(b"# Project\r\n\r\ntext\r\n")
    export(path, block(1))
    export(path, block(1, 2))
    data = path.read_bytes()
    assert data.startswith(b"# Project\r\n\r\ntext\r\n\r\n")
    assert data.count(b"\n") == data.count(b"\r\n")
    assert b"rule 2" in data


def test_a_byte_order_mark_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_bytes(b"\xef\xbb\xbf# Project\n")
    plan = export(path, block(1))
    assert plan.bom
    assert path.read_bytes() == b"\xef\xbb\xbf# Project\n\n" + block(1).encode() + b"\n"


def test_malformed_markers_are_refused_and_nothing_changes(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    original = f"intro\n{BEGIN_MARKER}\nno end marker\n".encode()
    path.write_bytes(original)
    with pytest.raises(ExportError, match=r"line 2 has no end marker.*nothing was changed"):
        plan_export(path, block(1))
    assert path.read_bytes() == original


def test_a_file_that_is_not_utf8_is_left_byte_identical(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    original = b"# Caf\xe9\r\n" + END_MARKER.encode()
    path.write_bytes(original)
    with pytest.raises(ExportError, match="not UTF-8"):
        plan_export(path, block(1))
    assert path.read_bytes() == original
    assert files_in(tmp_path) == ["CLAUDE.md"]


def test_a_target_in_a_missing_folder_is_refused_when_planning(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="does not exist"):
        plan_export(tmp_path / "typo" / "CLAUDE.md", block(1))


@pytest.mark.parametrize(
    "meanwhile",
    [
        lambda p: p.write_text("# Project\nedited after the preview\n"),
        lambda p: p.write_bytes(b"\xef\xbb\xbf# Project\n"),  # only a BOM added
        lambda p: p.unlink(),
    ],
)
def test_a_file_changed_after_the_preview_is_not_written(
    tmp_path: Path, meanwhile: Callable[[Path], object]
) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_text("# Project\n")
    plan = plan_export(path, block(1))
    meanwhile(path)
    snapshot = path.read_bytes() if path.exists() else None
    with pytest.raises(ExportError, match="changed since the preview; nothing written"):
        apply_export(plan)
    assert (path.read_bytes() if path.exists() else None) == snapshot


def test_a_file_created_after_the_preview_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    plan = plan_export(path, block(1))
    path.write_text("mine\n")
    with pytest.raises(ExportError, match="changed since the preview"):
        apply_export(plan)
    assert path.read_text() == "mine\n"


# --- the @import variant -------------------------------------------------------------------


def test_via_a_file_of_its_own_claude_md_only_imports_it(tmp_path: Path) -> None:
    target = tmp_path / "CLAUDE.md"
    target.write_text("# Project\n")
    (tmp_path / ".claude").mkdir()
    via = tmp_path / ".claude" / "memory-curator.md"
    plan = export(target, block(1), via=via)
    assert via.read_text() == block(1) + "\n"
    assert target.read_text() == "# Project\n\n@.claude/memory-curator.md\n"
    assert plan.path == via and plan.import_path == target
    diff = plan.diff()
    assert "+++ b/.claude/memory-curator.md" in diff and "+++ b/CLAUDE.md" in diff
    assert "+@.claude/memory-curator.md" in diff


def test_a_second_export_via_a_file_does_not_duplicate_the_import(tmp_path: Path) -> None:
    target = tmp_path / "CLAUDE.md"
    via = tmp_path / "memory-curator.md"
    export(target, block(1), via=via)
    imported = target.read_bytes()
    plan = export(target, block(2), via=via)
    assert plan.import_old == plan.import_new
    assert target.read_bytes() == imported
    assert imported.decode().count("@memory-curator.md") == 1
    assert via.read_text() == block(2) + "\n"


def test_the_block_file_is_written_before_the_file_importing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "CLAUDE.md"
    via = tmp_path / "memory-curator.md"
    plan = plan_export(target, block(1), via=via)
    written: list[Path] = []
    monkeypatch.setattr(export_file, "write_atomically", lambda p, *a, **k: written.append(p))
    apply_export(plan)
    assert written == [via, target]


def test_a_block_file_outside_the_project_is_imported_by_absolute_path(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    via = tmp_path / "elsewhere.md"
    export(project / "CLAUDE.md", block(1), via=via)
    expected = f"@{via.resolve().as_posix()}\n"
    assert (project / "CLAUDE.md").read_text() == expected


def test_the_block_file_cannot_be_claude_md_itself(tmp_path: Path) -> None:
    target = tmp_path / "CLAUDE.md"
    with pytest.raises(ExportError, match=r"CLAUDE\.md itself"):
        plan_export(target, block(1), via=tmp_path / "." / "CLAUDE.md")


def test_a_crlf_block_file_stays_crlf(tmp_path: Path) -> None:
    target = tmp_path / "CLAUDE.md"
    via = tmp_path / "memory.md"
    via.write_bytes(b"old\r\n")
    export(target, block(1), via=via)
    assert via.read_bytes() == block(1).replace("\n", "\r\n").encode() + b"\r\n"


def test_the_block_file_changed_after_the_preview_stops_both_writes(tmp_path: Path) -> None:
    target = tmp_path / "CLAUDE.md"
    target.write_text("# Project\n")
    via = tmp_path / "memory.md"
    plan = plan_export(target, block(1), via=via)
    via.write_text("someone else\n")
    with pytest.raises(ExportError, match=r"memory\.md changed since the preview"):
        apply_export(plan)
    assert target.read_text() == "# Project\n"
    assert via.read_text() == "someone else\n"


def test_the_importing_file_changed_after_the_preview_stops_both_writes(tmp_path: Path) -> None:
    target = tmp_path / "CLAUDE.md"
    target.write_text("# Project\n")
    via = tmp_path / "memory.md"
    plan = plan_export(target, block(1), via=via)
    target.write_text("# Project, edited\n")
    with pytest.raises(ExportError, match=r"CLAUDE\.md changed since the preview"):
        apply_export(plan)
    assert not via.exists()


# --- several files together ----------------------------------------------------------------


def test_files_written_together_are_all_written_or_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.md").write_text("old a")
    (tmp_path / "gone.md").write_text("old gone")
    changes = [
        FileChange(tmp_path / "a.md", "old a", "new a"),
        FileChange(tmp_path / "gone.md", "old gone", None),
        FileChange(tmp_path / "b.md", None, "new b"),
    ]
    written = 0
    real = export_file.os.fsync

    def b_full(descriptor: int) -> None:
        nonlocal written
        written += 1
        if written == 2:  # b.md's temporary file: before anything was renamed
            raise OSError(28, "No space left on device")
        real(descriptor)

    monkeypatch.setattr(export_file.os, "fsync", b_full)
    with pytest.raises(ExportError, match=r"b\.md: .*No space left.*nothing was changed"):
        write_together(changes)
    monkeypatch.setattr(export_file.os, "fsync", real)
    assert files_in(tmp_path) == ["a.md", "gone.md"]
    assert (tmp_path / "a.md").read_text() == "old a"
    write_together(changes)
    assert files_in(tmp_path) == ["a.md", "b.md"]
    assert [(tmp_path / n).read_text() for n in ("a.md", "b.md")] == ["new a", "new b"]
