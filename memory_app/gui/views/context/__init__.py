"""Context: exactly what an assistant would be handed for a task, tier by tier, within a
token budget (UX.md "Context"). Memories can be pinned or kept out from here, and the
CLAUDE.md block is exported only after its diff has been seen. A second tab shows what
Claude Code's recall hooks did hand the assistant, live (widgets/injections_panel.py); a
third, the memories predicted for a branch, some files and an error (seed 004).

The preview is a preview, not a use: it never counts as access to the memories it shows.

One module per part of the view, so each can be read on its own:

- `view`: `ContextView`, its two tabs, and the request → preview cycle;
- `request_bar`: the task, project and budget of the request;
- `preview_data`: the preview loaded on the database worker (no Qt);
- `tiers_panel`: the tiers of the plan, with Pin and Exclude;
- `tier_rows`: the tree's rows and the score breakdown on their tooltips;
- `claude_md`: the export into a CLAUDE.md, after its diff;
- `predicted_panel`: the Predicted tab, memories for a branch, files and an error.

The names other modules use are importable from here, as before the split.
"""

from memory_app.gui.views.context.claude_md import EXPORT_ERRORS
from memory_app.gui.views.context.preview_data import (
    ContextPreview,
    ExcludedMemory,
    let_back_in,
    load_preview,
)
from memory_app.gui.views.context.request_bar import DEFAULT_BUDGET, project_labels
from memory_app.gui.views.context.tier_rows import (
    EXCLUDED_KEY,
    ROW_ROLE,
    SCORE,
    TEXT,
    TOKENS,
    breakdown_tooltip,
)
from memory_app.gui.views.context.tiers_panel import ACTION_ERRORS
from memory_app.gui.views.context.view import (
    INJECTIONS,
    PREDICTED,
    REFRESH_DEBOUNCE_MS,
    TAB_KEY,
    ContextView,
)

__all__ = [
    "ACTION_ERRORS",
    "DEFAULT_BUDGET",
    "EXCLUDED_KEY",
    "EXPORT_ERRORS",
    "INJECTIONS",
    "PREDICTED",
    "REFRESH_DEBOUNCE_MS",
    "ROW_ROLE",
    "SCORE",
    "TAB_KEY",
    "TEXT",
    "TOKENS",
    "ContextPreview",
    "ContextView",
    "ExcludedMemory",
    "breakdown_tooltip",
    "let_back_in",
    "load_preview",
    "project_labels",
]
