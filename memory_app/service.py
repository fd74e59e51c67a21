"""The façade every front end uses (GUI, CLI, later hooks and MCP): seed 000 §5.1.

It is composed of one part per capability (memory_app/operations/: memorizing,
contradictions, curation, retrieval, maintenance) and adds the reads every view needs.
It returns plain records, never ORM rows, and each operation is one unit of work. With a
model-backed extractor, category summaries are evolved by the model between units of
work (never while the write lock is held), and every model call's tokens and cost are
recorded.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from sqlmodel import col, select

from memory_app.config import Settings
from memory_app.conflicts import detector
from memory_app.domain.categories import DEFAULT_CATEGORIES
from memory_app.domain.records import (
    AuditRecord,
    CategoryInfo,
    DashboardData,
    ItemQuery,
    MaintenanceRunRecord,
    MemoryRecord,
    ResourceRecord,
    Stats,
    TurnRecord,
)
from memory_app.domain.validation import validate_item_fields
from memory_app.extract.base import (
    Extractor,
)
from memory_app.links.operations import LinkOperations
from memory_app.operations.common import (
    AUTO_RESOLVE_POLICIES,
    EDITABLE_FIELDS,
    CategoryView,
    claude_judge_for,
)
from memory_app.operations.conflicts import ConflictOperations
from memory_app.operations.curation import CurationOperations
from memory_app.operations.maintenance import MaintenanceOperations
from memory_app.operations.memorize import MemorizeOperations
from memory_app.operations.retrieval import RetrievalOperations
from memory_app.operations.team import TeamOperations
from memory_app.operations.usage_feedback import UsageFeedbackOperations
from memory_app.retrieval.access import AccessLog
from memory_app.retrieval.cache import QueryCache
from memory_app.store import conflicts as conflict_store
from memory_app.store import insights, item_queries
from memory_app.store import repository as repo
from memory_app.store import usage as usage_store
from memory_app.store.database import Database
from memory_app.store.errors import NotFoundError
from memory_app.store.search_match import compile_search
from memory_app.store.tables import ResourceRow


class MemoryService(
    MemorizeOperations,
    ConflictOperations,
    CurationOperations,
    RetrievalOperations,
    MaintenanceOperations,
    UsageFeedbackOperations,
    LinkOperations,
    TeamOperations,
):
    """Memory operations over one database with one extractor."""

    def __init__(
        self,
        db: Database,
        extractor: Extractor,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        auto_resolve: str | None = None,
        conflict_judge: detector.Judge | None = None,
    ) -> None:
        """`auto_resolve`: None (every conflict waits for a person) or
        "newer_if_confident" (the newer memory wins when its confidence is at least as
        high; recorded as auto_resolved by "system" and undoable). `conflict_judge`:
        a model judge for contradiction candidates (it fails open to the rules); the
        rules judge alone by default; `claude_judge_for(extractor)` makes Claude's (opt-in,
        like the Claude extractor: model calls cost money only when asked for)."""
        if auto_resolve is not None and auto_resolve not in AUTO_RESOLVE_POLICIES:
            raise ValueError(
                f"unknown auto-resolve policy {auto_resolve!r}; "
                f"known: {', '.join(AUTO_RESOLVE_POLICIES)}"
            )
        self.db = db
        self.extractor = extractor
        self.clock = clock
        self.auto_resolve = auto_resolve
        self.conflict_judge = conflict_judge
        self.retrieval_cache = QueryCache()
        self.access_log = AccessLog()
        if db.damage is None:  # a damaged store is opened for reading only
            with db.writing() as session:
                repo.ensure_categories(session, DEFAULT_CATEGORIES)

    @classmethod
    def open(
        cls,
        settings: Settings,
        extractor: Extractor | None = None,
        *,
        clock: Callable[[], datetime] | None = None,
        auto_resolve: str | None = None,
    ) -> MemoryService:
        """Open (creating and migrating as needed) the store the settings point at; its
        folder is created by the store, private (store/file_modes.py)."""
        db = Database(settings.db_url, backup_dir=settings.backup_dir)
        if extractor is None:
            from memory_app.extract.offline import OfflineExtractor

            extractor = OfflineExtractor()
        try:
            if clock is None:
                return cls(db, extractor, auto_resolve=auto_resolve)
            return cls(db, extractor, clock=clock, auto_resolve=auto_resolve)
        except BaseException:
            db.close()  # a refused setting leaves no connection open
            raise

    def close(self) -> None:
        """Write pending access counts (not to a damaged store), then let go of the
        database."""
        try:
            if self.db.damage is None:
                self.flush_access()
        finally:
            self.db.close()

    def reopen(self) -> None:
        """Open the store's file again after `close()`, as if new: a restore may have put
        another store in its place, so nothing read from the previous one is kept."""
        self.db = Database(self.db.url, backup_dir=self.db.backup_dir)
        self.retrieval_cache = QueryCache()
        self.access_log = AccessLog()
        if self.db.damage is None:
            with self.db.writing() as session:
                repo.ensure_categories(session, DEFAULT_CATEGORIES)

    # -- memorize ---------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        limit: int = 20,
        category: str | None = None,
        statuses: Sequence[str] = ("active",),
    ) -> list[MemoryRecord]:
        """Full-text search in the search syntax (domain/search_syntax.py), best first;
        all words must match, else any word may (exclusions and filters always hold).
        Exclusions and filters alone list the other memories, newest first."""
        if limit < 1:
            raise ValueError("limit must be at least 1")
        with self.db.reading() as session:
            if category is not None:
                self._require_category(session, category)
            conn = session.connection()
            search = compile_search(conn, query)
            hits = self.db.dialect.search_items(
                conn, search, limit=limit, category=category, statuses=tuple(statuses)
            )
            if not hits and search.widens:
                hits = self.db.dialect.search_items(
                    conn,
                    compile_search(conn, query, match_any=True),
                    limit=limit,
                    category=category,
                    statuses=tuple(statuses),
                )
            found = repo.records_by_ids(session, [i for i, _ in hits])
            open_ = conflict_store.open_conflicts_for(session, found)
            return [
                replace(found[i], score=score, conflict_ids=tuple(open_.get(i, ())))
                for i, score in hits
                if i in found
            ]

    def list_items(
        self,
        *,
        category: str | None = None,
        status: str | None = "active",
        pinned: bool | None = None,
        branch: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[MemoryRecord]:
        """Memories newest first; `branch`: learnt on that git branch."""
        with self.db.reading() as session:
            if category is not None:
                self._require_category(session, category)
            if status is not None:
                validate_item_fields({"status": status}, ())
            statuses = (status,) if status else ()
            rows = repo.list_items(
                session,
                category=category,
                statuses=statuses,
                pinned=pinned,
                branch=branch,
                limit=limit,
                offset=offset,
            )
            return [repo.to_record(r) for r in rows]

    def get_item(self, item_id: int) -> MemoryRecord:
        with self.db.reading() as session:
            return repo.to_record(repo.get_item(session, item_id))

    def item_history(self, item_id: int) -> list[AuditRecord]:
        with self.db.reading() as session:
            repo.get_item(session, item_id)
            return repo.history(session, item_id)

    def categories(self) -> list[CategoryInfo]:
        with self.db.reading() as session:
            return repo.category_infos(session)

    def get_category(self, key: str, *, limit: int = 100) -> CategoryView:
        with self.db.reading() as session:
            self._require_category(session, key)
            info = next(c for c in repo.category_infos(session) if c.key == key)
            summary = repo.summary(session, key)
            rows = repo.list_items(session, category=key, limit=limit)
            markdown = summary.markdown if summary else ""
            if summary is not None and summary.digest:
                markdown += f"\n## Older Memories (compressed)\n\n{summary.digest}"
            return CategoryView(info, markdown, tuple(repo.to_record(r) for r in rows))

    def query_items(self, query: ItemQuery) -> list[MemoryRecord]:
        """One page of the memory table (filters, sort, paging done in SQL)."""
        with self.db.reading() as session:
            return item_queries.query_items(session, query)

    def count_items(self, query: ItemQuery) -> int:
        with self.db.reading() as session:
            return item_queries.count_items(session, query)

    def dashboard(self) -> DashboardData:
        """Everything the dashboard shows, read in one unit of work."""
        upcoming = self.next_maintenance()
        with self.db.reading() as session:
            return DashboardData(
                stats=repo.stats(session),
                weekly_added=tuple(insights.weekly_added(session, self.clock())),
                confidence_histogram=insights.confidence_histogram(session),
                activity=tuple(insights.recent_activity(session)),
                usage=usage_store.summary(session),
                next_maintenance=upcoming,
            )

    def maintenance_runs(self, limit: int = 50) -> list[MaintenanceRunRecord]:
        with self.db.reading() as session:
            return insights.maintenance_runs(session, limit)

    def resource_turns(self, resource_id: int) -> list[TurnRecord]:
        with self.db.reading() as session:
            if session.get(ResourceRow, resource_id) is None:
                raise NotFoundError("conversation", resource_id)
            return insights.resource_turns(session, resource_id)

    def get_stats(self) -> Stats:
        with self.db.reading() as session:
            return repo.stats(session)

    def get_status(self) -> dict[str, Any]:
        """A cheap health check: the store opens and answers."""
        stats = self.get_stats()
        return {
            "state": "ready",
            "items": stats.items,
            "last_memorized": stats.last_memorized,
            "database": str(self.db.path or self.db.url),
        }

    def resources(self, *, limit: int = 100, offset: int = 0) -> list[ResourceRecord]:
        with self.db.reading() as session:
            rows = session.exec(
                select(ResourceRow)
                .order_by(col(ResourceRow.imported_at).desc(), col(ResourceRow.id).desc())
                .offset(offset)
                .limit(limit)
            ).all()
            return [repo.resource_record(session, r) for r in rows]

    def get_resource(self, resource_id: int) -> tuple[ResourceRecord, str]:
        """A conversation's record and its full normalized text."""
        with self.db.reading() as session:
            row = session.get(ResourceRow, resource_id)
            if row is None:
                raise NotFoundError("conversation", resource_id)
            return repo.resource_record(session, row), row.text

    # -- curation ---------------------------------------------------------------------


__all__ = [
    "AUTO_RESOLVE_POLICIES",
    "EDITABLE_FIELDS",
    "CategoryView",
    "MemoryService",
    "claude_judge_for",
]
