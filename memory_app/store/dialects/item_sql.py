"""The SQL both engines write alike around a memory search: the item's filters, and the
newest-first listing when a search has nothing to rank by."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, text


def item_filters(
    where: list[str],
    params: dict[str, Any],
    category: str | None,
    statuses: tuple[str, ...],
    alias: str = "m",
) -> str:
    """`AND ...` conditions on the item `alias` for a search: its own ones, the category
    and the statuses (whose values go into `params`)."""
    conditions = list(where)
    if category is not None:
        conditions.append(f"{alias}.category = :category")
        params["category"] = category
    if statuses:
        names = [f":s{i}" for i in range(len(statuses))]
        conditions.append(f"{alias}.status IN ({', '.join(names)})")
        params.update({f"s{i}": s for i, s in enumerate(statuses)})
    return "".join(f" AND {w}" for w in conditions)


def newest_item_ids(
    conn: Connection,
    where: list[str],
    params: dict[str, Any],
    *,
    limit: int,
    offset: int,
    category: str | None,
    statuses: tuple[str, ...],
) -> list[tuple[int, float]]:
    """Only exclusions and filters, nothing to rank by: the newest first, relevance 0."""
    filters = item_filters(where, params, category, statuses)
    sql = (
        f"SELECT m.id FROM memory_item AS m WHERE 1 = 1{filters} "
        "ORDER BY m.extracted_at DESC, m.id DESC LIMIT :limit OFFSET :offset"
    )
    rows = conn.execute(text(sql), {**params, "limit": limit, "offset": offset}).all()
    return [(row[0], 0.0) for row in rows]
