"""Getting memory back to the assistant: ranked retrieval, tiered context, access."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from memory_app.domain.branches import DEFAULT_BASE_BRANCHES
from memory_app.domain.budget import ContextPlan, validate_budget
from memory_app.domain.claude_md import DEFAULT_MAX_CHARS
from memory_app.domain.retrieval import RetrievalQuery, RetrievedMemory
from memory_app.domain.scoring import RankingWeights
from memory_app.operations.common import ServiceState
from memory_app.retrieval import branch_export, claude_md_export
from memory_app.retrieval import context as context_builder
from memory_app.retrieval.access import AccessLog
from memory_app.retrieval.branch_export import BranchExport
from memory_app.retrieval.cache import QueryCache
from memory_app.retrieval.claude_md_export import ClaudeMdExport
from memory_app.retrieval.export_file import apply_export
from memory_app.retrieval.git_checkout import Checkout
from memory_app.retrieval.ranker import rank
from memory_app.store import conflicts as conflict_store
from memory_app.store import repository as repo
from memory_app.store import retrieval as retrieval_store


class RetrievalOperations(ServiceState):
    retrieval_cache: QueryCache[list[RetrievedMemory]]
    access_log: AccessLog

    def retrieve(
        self, query: RetrievalQuery | str, *, record_access: bool = False
    ) -> list[RetrievedMemory]:
        """The best memories for a task, each with its score breakdown (seed 000 §4.2).

        `record_access`: count these results as used (for what is really handed to an
        assistant, not for a preview); written later in a batch, see `flush_access`.
        """
        if isinstance(query, str):
            query = RetrievalQuery(text=query)
        with self.db.reading() as session:
            conn = session.connection()
            generation = retrieval_store.generation(conn)
            results = self.retrieval_cache.get(query, generation)
            if results is None:
                hits = rank(conn, query, self.clock())
                records = repo.records_by_ids(session, [i for i, _ in hits])
                open_ = conflict_store.open_conflicts_for(session, records)
                results = [
                    RetrievedMemory(
                        replace(records[i], score=b.total, conflict_ids=tuple(open_.get(i, ()))),
                        b,
                    )
                    for i, b in hits
                    if i in records
                ]
                self.retrieval_cache.put(query, generation, results)
        if record_access:
            self.access_log.note(r.record.id for r in results)
        return results

    def flush_access(self) -> int:
        """Write the access counts piled up by retrievals; returns memories updated.
        On failure the counts are kept for the next try and the error is raised."""
        uses = self.access_log.drain()
        if not uses:
            return 0
        try:
            with self.db.writing() as session:
                return retrieval_store.record_access(session.connection(), uses, self.clock())
        except Exception:
            self.access_log.restore(uses)
            raise

    def build_context(
        self, request: context_builder.ContextRequest, *, record_access: bool = False
    ) -> ContextPlan:
        """What would be injected for a task: tiered, within the token budget."""
        validate_budget(request.budget)
        with self.db.reading() as session:
            plan = context_builder.build(session.connection(), request, self.clock())
        if record_access:
            self.access_log.note(plan.item_ids)
        return plan

    def set_context_exclusion(self, item_id: int, project: str | None, excluded: bool) -> None:
        """Keep a memory out of a project's context (project None: out of every
        context), or let it back in. The memory itself is untouched."""
        with self.db.writing() as session:
            repo.get_item(session, item_id)
            retrieval_store.set_excluded(
                session.connection(), item_id, project, excluded, self.clock()
            )

    def context_exclusions(self, project: str | None) -> frozenset[int]:
        with self.db.reading() as session:
            return retrieval_store.excluded_ids(session.connection(), project)

    def projects(self) -> list[tuple[str, int]]:
        """Projects that have active memories, with how many."""
        with self.db.reading() as session:
            return retrieval_store.projects(session.connection())

    def branches(
        self, project: str | None = None, statuses: Sequence[str] | None = ("active",)
    ) -> list[tuple[str, int]]:
        """Git branches with memories of these statuses (None: any but deleted) of a
        project's folder (or any), with how many, by name."""
        with self.db.reading() as session:
            return retrieval_store.branches(session.connection(), project, statuses)

    def plan_claude_md(
        self,
        path: Path,
        *,
        project: str | None = None,
        max_chars: int = DEFAULT_MAX_CHARS,
        via: Path | None = None,
        branch: str | None = None,
        base: tuple[str, ...] = DEFAULT_BASE_BRANCHES,
    ) -> ClaudeMdExport:
        """The managed block for a project and the exact change to the file(s); nothing
        is written (show `.diff()`, then `write_claude_md`). With `branch`: that git
        branch's memories and the base ones (learnt on no branch or on one of `base`)."""
        with self.db.reading() as session:
            return claude_md_export.plan(
                session,
                path,
                project=project,
                max_chars=max_chars,
                via=via,
                now=self.clock(),
                weights=RankingWeights(),
                branch=branch,
                base=base,
            )

    def plan_branch_files(
        self,
        checkout: Checkout,
        *,
        folder: Path,
        target: Path,
        project: str | None,
        base: tuple[str, ...],
        max_chars: int = DEFAULT_MAX_CHARS,
        via: Path | None = None,
        make_folder: bool = False,
    ) -> BranchExport:
        """Seed 001 §7's files for a git checkout: CLAUDE_base.md and one
        CLAUDE_{branch}.md per branch with memories in `folder`, and the managed block of
        `target` switched to the checked-out branch; nothing is written (then
        `write_branch_files`). `make_folder`: a missing `folder` is made when writing
        (else refused)."""
        with self.db.reading() as session:
            return branch_export.plan(
                session,
                checkout,
                folder=folder,
                target=target,
                project=project,
                base=base,
                max_chars=max_chars,
                via=via,
                now=self.clock(),
                weights=RankingWeights(),
                make_folder=make_folder,
            )

    def write_branch_files(self, export: BranchExport) -> None:
        """Write a planned branch export; nothing when a file changed since the plan."""
        branch_export.apply(export)

    def write_claude_md(self, export: ClaudeMdExport) -> None:
        """Write a planned export atomically; refuses if a file changed since the plan.

        Not counted as access: the block is always there, not retrieved for a task, and
        counting it would reorder the next export (a diff with no news in it)."""
        apply_export(export.files)
