"""Sources: the imported conversations, a reader for each, and importing more.

One module per part of the page, so each can be read on its own:

- `view`: `SourcesView`, which lays the parts out and keeps them in step;
- `conversation_list`: the filter, the table of conversations and their count;
- `reader`: the chosen conversation, loaded off the GUI thread, with its links;
- `conversation_html`: the reader's HTML (tool traffic folded, redactions marked, the
  turns that produced memories tinted and linked to them);
- `import_actions`: the Import / Extract / Retry row and the jobs it runs;
- `import_result`: the outcome of the last job, with its details.

The names other modules use are importable from here, as before the split.
"""

from memory_app.gui.views.sources.conversation_html import (
    TOOL_PREVIEW_CHARS,
    TOOL_PREVIEW_LINES,
    Conversation,
    ReaderColours,
    ReaderState,
    render_conversation,
)
from memory_app.gui.views.sources.import_result import ImportResultBar, summarize_report
from memory_app.gui.views.sources.view import SourcesView

__all__ = [
    "TOOL_PREVIEW_CHARS",
    "TOOL_PREVIEW_LINES",
    "Conversation",
    "ImportResultBar",
    "ReaderColours",
    "ReaderState",
    "SourcesView",
    "render_conversation",
    "summarize_report",
]
