"""LLM-assisted retrieval (seed 000 §3.3 "Read Path"): Claude rewrites the task into
keyword queries and picks categories; a second, small request asks whether those
categories' summaries already answer it. The offline ranking always runs first and is
the answer whenever anything about Claude fails.

Why: the full-text ranker only finds a memory that shares a word with the task, so
"which database do we use?" misses "We store everything in PostgreSQL". The model
supplies the words (synonyms, the tools and identifiers the task implies); the offline
ranker still does the finding, restricted to the categories the model chose.

What the model can and cannot do:
- it can only add: the synthesized queries' rankings are fused with the task's own
  offline ranking (reciprocal rank fusion), and the task's best offline matches (the top
  half of the limit) are always kept;
- a category key it names that the store does not have (or the caller's filter does not
  allow) is dropped, never searched;
- sufficient summaries lead the answer, they never replace the memories' ranking.

Caps (the figures in `AssistLimits`): each request's prompt is at most 8,000 characters
(about 2,000 tokens: the task is cut to 2,000 characters, category descriptions to 120,
and each summary to 1,500 with the summaries together cut to what is left), answers are
capped by `max_tokens` (400 for the queries, 120 for the check), and the whole assisted
call waits at most `timeout` seconds (20 by default) however the SDK's retries go: each
request runs in a daemon thread the caller stops waiting for at the deadline. The tokens
of a request abandoned that way are not known, so not recorded.

Fallback (the offline ranking exactly as without --assisted, with a reason to show): no
API key, network error, timeout, any HTTP error after the SDK's retries, an answer that
is not a Messages response or not valid for the schema, or any other error of the client.
Nothing here raises for those. When only the sufficiency check fails that way, its reason
is reported as `check_failed`, the verdict is unknown, and the plan's queries (already
paid for) are still fused.

A server that serializes its store work with a lock passes it as `guard`: held around
the store reads and writes, never while Claude is asked (read_path.py).

Usage: the tokens of the requests are recorded as a "retrieve" run in the same table as
the extractor's (store/usage.py), so the dashboard's spend includes them.

The parts: questions.py asks Claude the two questions (their prompts, answer schemas
and caps), deadline.py waits for an answer no longer than the deadline, configured.py
makes the assistant the settings give, report.py says what the model contributed (or
why not) and records its tokens, fusion.py merges the synthesized queries' rankings
into the task's, read_path.py answers a retrieval and for_context.py a tiered context.
"""

from memory_app.retrieval.assisted.configured import assistant_from_env, configured_assistant
from memory_app.retrieval.assisted.for_context import AssistedContext, context
from memory_app.retrieval.assisted.questions import (
    MAX_QUERIES,
    AssistLimits,
    RetrievalAssistant,
    SearchPlan,
    Sufficiency,
)
from memory_app.retrieval.assisted.read_path import AssistedRetrieval, retrieve
from memory_app.retrieval.assisted.report import (
    NO_TASK,
    UNAVAILABLE,
    USAGE_KIND,
    Assistance,
    CategorySummary,
    Unavailable,
)

__all__ = [
    "MAX_QUERIES",
    "NO_TASK",
    "UNAVAILABLE",
    "USAGE_KIND",
    "AssistLimits",
    "Assistance",
    "AssistedContext",
    "AssistedRetrieval",
    "CategorySummary",
    "RetrievalAssistant",
    "SearchPlan",
    "Sufficiency",
    "Unavailable",
    "assistant_from_env",
    "configured_assistant",
    "context",
    "retrieve",
]
