"""`memory-app hooks install --mcp` and the `/mem` command file: the MCP server in
`.mcp.json` / `~/.claude.json` beside other servers, `mem.md` in `.claude/commands/`, the
Settings page's facade (hooks/setup.py), and the README's lines run as written."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memory_app.cli import main
from memory_app.config import resolve_settings
from memory_app.hooks import mcp_config, setup, slash_command
from memory_app.hooks.json_file import BACKUP_SUFFIX
from memory_app.hooks.mcp_config import SERVER_NAME, mcp_path, server_entry
from memory_app.hooks.settings_file import SettingsFileError
from memory_app.hooks.slash_command import MARKER, command_path, command_text

ROOT = Path(__file__).resolve().parents[3]
# Another tool's servers and keys, in that file's own layout (not ours: two-space indent
# after a tab-indented key, inline objects).
OTHER_MCP = (
    b'{\n\t"mcpServers": {"github": {"type": "http", "url": "https://api.example/mcp"},\n'
    b'\t  "db": {"command": "npx", "args": ["-y", "db-mcp"], "env": {"DB": "x"}}},\n'
    b'\t"other": [1, 2, 3]\n}\n'
)
# ~/.claude.json as Claude Code keeps it: much else, user servers at the top level.
OTHER_CLAUDE_JSON = (
    b'{"numStartups": 12, "projects": {"/some/project": {"mcpServers": {}, '
    b'"allowedTools": []}}, "mcpServers": {"playwright": {"type": "stdio", '
    b'"command": "npx", "args": ["@playwright/mcp@latest"], "env": {}}}, "theme": "dark"}'
)


@pytest.fixture
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(folder))
    return folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "app"
    folder.mkdir()
    return folder


def check_ours(entry: dict[str, Any]) -> None:
    """Our server runs this interpreter (a console script may spell it `python3`)."""
    assert entry == {
        "type": "stdio",
        "command": entry["command"],
        "args": ["-m", "memory_app", "mcp"],
    }
    assert Path(entry["command"]).resolve() == Path(sys.executable).resolve()


def hooks(*args: str) -> int:
    return main(["hooks", *args])


def test_project_mcp_json_beside_another_server_twice_then_uninstall_is_byte_identical(
    project: Path,
) -> None:
    path = project / ".mcp.json"
    path.write_bytes(OTHER_MCP)
    before = json.loads(OTHER_MCP)

    assert hooks("install", "--mcp", "--project", str(project)) == 0
    after_first = path.read_bytes()
    data = json.loads(after_first)
    assert list(data) == ["mcpServers", "other"] and data["other"] == [1, 2, 3]
    assert list(data["mcpServers"]) == ["github", "db", SERVER_NAME]  # theirs first, in order
    assert {k: v for k, v in data["mcpServers"].items() if k != SERVER_NAME} == before["mcpServers"]
    check_ours(data["mcpServers"][SERVER_NAME])
    assert path.with_name(".mcp.json" + BACKUP_SUFFIX).read_bytes() == OTHER_MCP

    assert hooks("install", "--mcp", "--project", str(project)) == 0
    assert path.read_bytes() == after_first  # idempotent

    assert hooks("uninstall", "--project", str(project)) == 0
    assert path.read_bytes() == OTHER_MCP
    assert hooks("uninstall", "--project", str(project)) == 0
    assert path.read_bytes() == OTHER_MCP


def test_user_claude_json_in_claude_config_dir_is_given_back_byte_identical(
    config_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = config_dir / ".claude.json"
    config_dir.mkdir()
    path.write_bytes(OTHER_CLAUDE_JSON)
    assert mcp_path() == path
    for _ in range(2):
        assert hooks("install", "--mcp") == 0
    capsys.readouterr()
    data = json.loads(path.read_text())
    assert list(data) == ["numStartups", "projects", "mcpServers", "theme"]
    assert list(data["mcpServers"]) == ["playwright", SERVER_NAME]
    assert data["projects"] == {"/some/project": {"mcpServers": {}, "allowedTools": []}}
    check_ours(data["mcpServers"][SERVER_NAME])

    assert hooks("status", "--json") == 0
    status = json.loads(capsys.readouterr().out)
    assert status["mcp"]["installed"] is True and status["mcp"]["current"] is True
    assert status["mcp"]["path"] == str(path) and status["mcp"]["name"] == SERVER_NAME
    assert status["command"]["installed"] is True and status["installed"] is True
    assert hooks("status") == 0
    assert f"MCP server memory-curator: {path}\n  registered\n" in capsys.readouterr().out

    assert hooks("uninstall") == 0
    assert capsys.readouterr().out.startswith(
        "Removed the hooks, the /mem command and the MCP server.\n"
    )
    assert path.read_bytes() == OTHER_CLAUDE_JSON
    assert hooks("status", "--json") == 0
    assert json.loads(capsys.readouterr().out)["mcp"]["installed"] is False


def test_without_claude_config_dir_the_user_file_is_in_home(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    home = Path.home()
    assert mcp_path() == home / ".claude.json"
    assert command_path() == home / ".claude" / "commands" / "mem.md"
    assert mcp_path(Path("p")) == Path("p") / ".mcp.json"
    assert command_path(Path("p")) == Path("p") / ".claude" / "commands" / "mem.md"
    env = {"CLAUDE_CONFIG_DIR": "/cfg"}
    assert mcp_path(env=env) == Path("/cfg/.claude.json")
    assert command_path(env=env) == Path("/cfg/commands/mem.md")


def test_a_key_we_created_goes_and_a_file_we_created_is_deleted(
    project: Path, config_dir: Path
) -> None:
    """No `mcpServers` before: the key goes again, even without the backup's bytes; no
    file before: none after (its backup neither)."""
    path = config_dir / ".claude.json"
    config_dir.mkdir()
    path.write_text('{"numStartups": 3, "theme": "light"}')
    setup.setup_install()
    assert list(json.loads(path.read_text())) == ["numStartups", "theme", "mcpServers"]
    path.with_name(".claude.json" + BACKUP_SUFFIX).unlink()  # re-indented without it
    setup.setup_uninstall()
    assert json.loads(path.read_text()) == {"numStartups": 3, "theme": "light"}

    mcp_file = project / ".mcp.json"
    setup.setup_install(project)
    check_ours(json.loads(mcp_file.read_text())["mcpServers"][SERVER_NAME])
    old = {"type": "stdio", "command": "/old/python", "args": ["-m", "memory_app", "mcp"]}
    mcp_file.write_text(json.dumps({"mcpServers": {SERVER_NAME: old}}))
    assert setup.setup_status(project).part("mcp").current is False
    setup.setup_install(project)  # brought up to date: a backup of our old entry
    assert setup.setup_status(project).part("mcp").current is True
    setup.setup_uninstall(project)
    assert not mcp_file.exists()
    assert not list(project.glob(".mcp.json*"))


def test_an_empty_servers_object_of_theirs_stays(project: Path) -> None:
    path = project / ".mcp.json"
    path.write_text('{"mcpServers": {}}')
    setup.setup_install(project)
    assert list(json.loads(path.read_text())["mcpServers"]) == [SERVER_NAME]
    setup.setup_uninstall(project)
    assert path.read_text() == '{"mcpServers": {}}'


def test_the_readme_registration_is_ours_and_another_server_of_that_name_is_refused(
    project: Path,
) -> None:
    path = project / ".mcp.json"
    readme_style = {"type": "stdio", "command": "memory-app", "args": ["mcp"], "env": {}}
    path.write_text(json.dumps({"mcpServers": {SERVER_NAME: readme_style}}))
    assert setup.setup_status(project).part("mcp").installed is True
    setup.setup_install(project)
    entry = json.loads(path.read_text())["mcpServers"][SERVER_NAME]
    assert entry["env"] == {}  # their extra key stays
    check_ours({k: v for k, v in entry.items() if k != "env"})

    theirs = b'{"mcpServers": {"memory-curator": {"command": "someone-elses-server"}}}'
    path.write_bytes(theirs)
    with pytest.raises(SettingsFileError, match="another MCP server named"):
        setup.setup_install(project)
    assert path.read_bytes() == theirs
    setup.setup_uninstall(project)  # not ours to remove
    assert path.read_bytes() == theirs
    assert setup.setup_status(project).part("mcp").installed is False


@pytest.mark.parametrize("content", ["{not json", '["a list"]', '{"mcpServers": []}'])
def test_an_mcp_file_that_is_not_json_is_refused_and_nothing_is_written(
    project: Path, content: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = project / ".mcp.json"
    path.write_text(content)
    assert hooks("install", "--mcp", "--project", str(project)) == 1
    assert "nothing was changed" in capsys.readouterr().err
    for action in (mcp_config.install, mcp_config.uninstall, mcp_config.status):
        with pytest.raises(SettingsFileError, match="nothing was changed"):
            action(path)
    # Nothing of ours can be in a file that does not parse: uninstall leaves it alone.
    removed = setup.setup_uninstall(project)
    assert removed.part("mcp").installed is False
    assert path.read_text() == content
    assert os.listdir(project) == [".mcp.json"]  # no hooks, no /mem, no backup

    # Without --mcp the file is not ours to change: the rest installs, status says why.
    assert hooks("install", "--project", str(project)) == 0
    assert path.read_text() == content
    capsys.readouterr()
    assert hooks("status", "--project", str(project), "--json") == 0
    status = json.loads(capsys.readouterr().out)
    assert status["installed"] is True
    assert status["mcp"]["installed"] is False and "nothing was changed" in status["mcp"]["error"]


def test_status_reports_an_unreadable_mcp_file_without_failing(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / ".mcp.json").write_text("{oops")
    assert hooks("status", "--project", str(project), "--json") == 0
    status = json.loads(capsys.readouterr().out)
    assert status["mcp"]["installed"] is False
    assert "not valid JSON" in status["mcp"]["error"]
    assert hooks("status", "--project", str(project)) == 0
    assert "  unknown: " in capsys.readouterr().out


def test_the_command_file_is_written_idempotent_and_removed(project: Path) -> None:
    path = project / ".claude" / "commands" / "mem.md"
    report = slash_command.install(path, "project")
    assert report.changed and report.installed and report.current
    text = path.read_text(encoding="utf-8")
    assert text == command_text()
    python = shlex.quote(sys.executable)
    front, body = text.split("---\n", 2)[1:]
    assert front.splitlines() == [
        "description: \"Memory Curator: list, pin or forget this project's memories, pause "
        'them, see why they were recalled"',
        'argument-hint: "list [query] | pin ID | forget ID | off | on | why"',
        f"allowed-tools: Bash({python} -m memory_app slash:*)",
        "disable-model-invocation: true",  # the model never runs /mem forget or off itself
    ]
    assert body.startswith(MARKER)
    # Quoted: what was typed reaches the CLI as one argument, never shell syntax.
    assert f'\n!`{python} -m memory_app slash "$ARGUMENTS"`\n' in body
    assert "exactly as it is" in body and "Do nothing else" in body

    stamp = path.stat().st_mtime_ns
    again = slash_command.install(path, "project")
    assert not again.changed and path.stat().st_mtime_ns == stamp

    path.write_text(text.replace("slash", "slash --old"))  # an older version of ours
    assert slash_command.status(path).current is False
    assert slash_command.install(path).changed and path.read_text() == text

    removed = slash_command.uninstall(path, "project")
    assert removed.changed and not path.exists()
    assert not slash_command.uninstall(path).changed


def test_a_foreign_mem_md_is_refused_and_left_untouched(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = project / ".claude" / "commands" / "mem.md"
    path.parent.mkdir(parents=True)
    theirs = "---\ndescription: my own notes command\n---\nSummarise $ARGUMENTS\n"
    path.write_text(theirs)
    assert hooks("install", "--project", str(project)) == 1
    assert "another command named /mem" in capsys.readouterr().err
    assert path.read_text() == theirs
    assert sorted(os.listdir(project / ".claude")) == ["commands"]  # no settings.json either
    with pytest.raises(SettingsFileError, match="another command named /mem"):
        setup.setup_install(project)
    assert hooks("uninstall", "--project", str(project)) == 0  # ours only: theirs stays
    assert path.read_text() == theirs
    assert hooks("status", "--project", str(project)) == 0
    assert "another mem.md is there" in capsys.readouterr().out


def test_the_facade_for_the_settings_page(tmp_path: Path, project: Path) -> None:
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}
    nothing = setup.setup_status(env=env)
    assert nothing.scope == "user" and not nothing.installed
    assert [(p.name, p.label) for p in nothing.parts] == [
        ("hooks", "Hooks (recall and capture)"),
        ("mcp", "MCP server"),
        ("command", "/mem command"),
    ]
    assert [p.path for p in nothing.parts] == [
        tmp_path / "cfg" / "settings.json",
        tmp_path / "cfg" / ".claude.json",
        tmp_path / "cfg" / "commands" / "mem.md",
    ]
    assert not any(p.installed or p.current for p in nothing.parts)

    without_mcp = setup.setup_install(env=env, mcp=False)
    assert without_mcp.installed  # the server is optional
    assert [p.installed for p in without_mcp.parts] == [True, False, True]
    assert not (tmp_path / "cfg" / ".claude.json").exists()
    full = setup.setup_install(env=env)
    assert all(p.installed and p.current for p in full.parts)
    assert setup.setup_status(env=env) == full
    project_scope = setup.setup_status(project, env)
    assert project_scope.scope == "project" and not project_scope.installed

    gone = setup.setup_uninstall(env=env)
    assert not gone.installed and not any(p.installed for p in gone.parts)
    assert json.loads((tmp_path / "cfg" / "settings.json").read_text()) == {}
    assert sorted(os.listdir(tmp_path / "cfg")) == [
        "commands",
        "settings.json",
        "settings.json" + BACKUP_SUFFIX,
    ]
    with pytest.raises(SettingsFileError, match="no such project folder"):
        setup.setup_install(tmp_path / "missing", env)


def test_the_mem_file_runs_the_slash_cli(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file's own "!`...`" line, `$ARGUMENTS` filled in as Claude Code does, through a
    shell in the project folder: /mem answers there."""
    path = slash_command.install(command_path(project), "project").path
    line = next(x for x in path.read_text().splitlines() if x.startswith("!`"))
    env = {**os.environ, "MEMORY_APP_DATA_DIR": str(tmp_path / "data")}
    for arguments, expected in (("off", "Memory is off for"), ("on", "Memory is on for")):
        done = subprocess.run(
            line[2:-1].replace("$ARGUMENTS", arguments),
            shell=True,
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(f"{expected} {project.resolve()}")


def readme_block(after: str, fence: str = "sh") -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split(after, 1)[1].split(f"```{fence}\n", 1)[1].split("```", 1)[0]
    return [line.split("  #")[0].strip() for line in block.splitlines() if line.strip()]


def test_the_readme_mcp_commands_as_written(tmp_path: Path) -> None:
    """Each line of the README's MCP block that this app runs, through a shell with HOME
    in a temp folder; the project's `.mcp.json` already holds another server."""
    commands = readme_block("The memory is also an MCP server")
    assert commands == [
        "memory-app hooks install --mcp",
        "memory-app hooks install --mcp --project ~/code/app",
        "claude mcp add --scope user memory-curator -- memory-app mcp",
    ]
    home = tmp_path / "home"
    app = home / "code" / "app"
    app.mkdir(parents=True)
    (app / ".mcp.json").write_bytes(OTHER_MCP)
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_CONFIG_DIR"}
    env["HOME"] = str(home)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"

    def run(command: str) -> None:
        done = subprocess.run(
            command, shell=True, env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr

    run(commands[0])
    check_ours(json.loads((home / ".claude.json").read_text())["mcpServers"][SERVER_NAME])
    assert (home / ".claude" / "commands" / "mem.md").read_text() == command_text()
    run(commands[1])
    check_ours(json.loads((app / ".mcp.json").read_text())["mcpServers"][SERVER_NAME])
    run("memory-app hooks uninstall --project ~/code/app")
    assert (app / ".mcp.json").read_bytes() == OTHER_MCP
    run("memory-app hooks uninstall")
    assert not (home / ".claude.json").exists()  # it held only our server
    assert not (home / ".claude" / "commands" / "mem.md").exists()
    assert not resolve_settings().data_dir.exists()  # the store was never opened


def test_the_setup_modules_do_not_load_the_store() -> None:
    code = "import sys, memory_app.hooks.setup; print(sorted(sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = done.stdout
    assert "sqlmodel" not in loaded and "sqlalchemy" not in loaded and "PySide6" not in loaded
    assert "'mcp'" not in loaded  # the MCP SDK is for `memory-app mcp` alone
    assert server_entry("/x/python") == {
        "type": "stdio",
        "command": "/x/python",
        "args": ["-m", "memory_app", "mcp"],
    }


def test_a_file_changed_by_another_program_meanwhile_is_not_overwritten(tmp_path: Path) -> None:
    """Claude Code rewrites ~/.claude.json often: a change made between our read and our
    write is never lost to it."""
    from memory_app.hooks import json_file

    path = tmp_path / ".claude.json"
    path.write_text('{"numStartups": 1}\n')
    original, data = json_file.load(path, "mcpServers")
    path.write_text('{"numStartups": 2}\n')  # Claude Code, meanwhile
    with pytest.raises(SettingsFileError, match="changed while it was being updated"):
        json_file.save(path, original, {**data, "mcpServers": {}})
    assert path.read_text() == '{"numStartups": 2}\n'
