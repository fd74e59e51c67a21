"""The Context view's Predicted tab on a real store: the memory naming the file comes
first with its reason, the branch is read from the project's git checkout (a real `git`),
and a request without any signal says what is missing."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memory_app.extract.base import ExtractedItem
from memory_app.gui.context import AppContext
from memory_app.gui.views.context import PREDICTED, TAB_KEY, ContextView
from tests.helpers import ScriptedExtractor, conversation
from tests.small_store import build_small_store

FLAGS = "The shop's retry flag lives in flags.yaml."
NAMED = "Retries in src/api/client.ts back off exponentially, at most five attempts."


@pytest.fixture
def view(qtbot: Any, context: AppContext) -> ContextView:
    panel = ContextView(context)
    qtbot.addWidget(panel)
    panel.resize(1100, 700)
    panel.show()
    return panel


def remember(
    context: AppContext, text: str, project: str, session: str, branch: str | None = None
) -> None:
    """A memory learnt through the real pipeline, in a conversation of this project."""
    context.service.extractor = ScriptedExtractor(
        [ExtractedItem("implementation_notes", text, 0.9)]
    )
    context.service.memorize(
        conversation(
            (f"Note this: {text}", "Noted."), session=session, project=project, branch=branch
        )
    )


def test_the_memory_naming_the_file_is_predicted_first_with_why(
    view: ContextView, context: AppContext, settle: Callable[..., None]
) -> None:
    build_small_store(context.service)
    remember(context, NAMED, "/home/dev/shop", "retry-notes")
    view.activate(PREDICTED)
    settle()
    panel = view.predicted
    assert view.main.currentWidget() is panel
    assert context.settings.value(TAB_KEY) == PREDICTED
    panel.files.setText(" src/api/client.ts , ")
    panel.predict_button.click()
    settle()
    assert panel.predictions, panel.status.text()
    top = panel.predictions[0]
    assert top.content == NAMED
    first = panel.results.topLevelItem(0)
    assert first.text(0) == f"#{top.id}  {NAMED}"
    assert "client.ts" in first.text(1)  # the reason names the file
    count = len(panel.predictions)
    assert panel.status.text() == (
        "1 memory predicted" if count == 1 else f"{count} memories predicted"
    )


def test_without_a_signal_it_says_what_to_give(
    view: ContextView, context: AppContext, settle: Callable[..., None]
) -> None:
    build_small_store(context.service)
    view.activate(PREDICTED)
    settle()
    view.predicted.branch.clear()
    view.predicted.predict_button.click()
    settle()
    assert view.predicted.status.text() == (
        "Give at least one signal: a branch, a file or an error."
    )
    assert view.predicted.results.topLevelItemCount() == 0


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_branch_comes_from_the_projects_checkout(
    view: ContextView, context: AppContext, settle: Callable[..., None], tmp_path: Path
) -> None:
    repo = tmp_path / "shop"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "feature/retry", str(repo)], check=True)
    remember(context, FLAGS, str(repo), "flags", branch="feature/retry")
    remember(context, "Deploys go out on Tuesdays.", str(repo), "deploys", branch="main")
    view.activate(PREDICTED)
    settle()
    panel = view.predicted
    panel.project.setCurrentIndex(panel.project.findData(str(repo)))
    settle()
    assert panel.branch.text() == "feature/retry"
    panel.predict_button.click()
    settle()
    assert [p.content for p in panel.predictions] == [FLAGS]
    assert "learnt on this branch (feature/retry)" in panel.results.topLevelItem(0).text(1)
