"""Recording model usage per extractor step and adding it up for the dashboard."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import case, func
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import Select

from memory_app.domain.usage import CallUsage, ExtractionRunRecord, ModelUsage, UsageSummary
from memory_app.store.tables import ExtractionRunRow


def record_run(
    session: Session,
    usage: CallUsage,
    *,
    extractor: str,
    resource_id: int | None = None,
    source: str | None = None,
    batch: str | None = None,
) -> ExtractionRunRow:
    row = ExtractionRunRow(
        kind=usage.kind,
        extractor=extractor,
        model=usage.model,
        status=usage.status,
        requests=usage.requests,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cost_usd=usage.cost_usd,
        duration_ms=usage.duration_ms,
        resource_id=resource_id,
        source=source,
        category=usage.category,
        batch=batch,
        error=usage.error,
    )
    session.add(row)
    return row


def summary(
    session: Session, *, since: datetime | None = None, batch: str | None = None
) -> UsageSummary:
    """Totals over all recorded runs (or those since a time, or of one import)."""
    # sqlmodel's select() is typed for at most four columns; its Select class takes any number
    # (the row's types are given, mypy cannot infer them from the constructor).
    query = Select[str | None, int, int | None, int | None, int | None, float | None, int, int](
        col(ExtractionRunRow.model),
        func.count(),
        func.sum(ExtractionRunRow.requests),
        func.sum(ExtractionRunRow.input_tokens),
        func.sum(ExtractionRunRow.output_tokens),
        func.sum(ExtractionRunRow.cost_usd),
        # Counted with CASE: PostgreSQL does not sum booleans.
        func.sum(case((col(ExtractionRunRow.cost_usd).is_(None), 1), else_=0)),
        func.sum(case((col(ExtractionRunRow.status) == "error", 1), else_=0)),
    ).group_by(col(ExtractionRunRow.model))
    if since is not None:
        query = query.where(col(ExtractionRunRow.at) >= since)
    if batch is not None:
        query = query.where(ExtractionRunRow.batch == batch)
    models: list[ModelUsage] = []
    errors = unpriced = 0
    for model, runs, requests, tokens_in, tokens_out, cost, no_price, failed in session.exec(
        query
    ).all():
        models.append(
            ModelUsage(
                model=model or "unknown",
                runs=runs,
                requests=requests or 0,
                input_tokens=tokens_in or 0,
                output_tokens=tokens_out or 0,
                cost_usd=round(cost or 0.0, 6),
            )
        )
        errors += failed or 0
        unpriced += no_price or 0
    models.sort(key=lambda m: m.cost_usd, reverse=True)
    return UsageSummary(
        runs=sum(m.runs for m in models),
        errors=errors,
        requests=sum(m.requests for m in models),
        input_tokens=sum(m.input_tokens for m in models),
        output_tokens=sum(m.output_tokens for m in models),
        cost_usd=round(sum(m.cost_usd for m in models), 6),
        by_model=tuple(models),
        unpriced_runs=unpriced,
        since=since,
    )


def recent_runs(session: Session, limit: int = 50) -> list[ExtractionRunRecord]:
    rows = session.exec(
        select(ExtractionRunRow).order_by(col(ExtractionRunRow.id).desc()).limit(limit)
    ).all()
    return [
        ExtractionRunRecord(
            id=r.id or 0,
            at=r.at,
            kind=r.kind,
            extractor=r.extractor,
            model=r.model,
            status=r.status,
            requests=r.requests,
            input_tokens=r.input_tokens,
            output_tokens=r.output_tokens,
            cost_usd=r.cost_usd,
            duration_ms=r.duration_ms,
            resource_id=r.resource_id,
            source=r.source,
            category=r.category,
            error=r.error,
        )
        for r in rows
    ]
