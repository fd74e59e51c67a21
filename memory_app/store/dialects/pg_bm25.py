"""bm25 on PostgreSQL, as SQLite's FTS5 computes it, so both engines rank alike.

ts_rank_cd has no word rarity: a memory matching a word in half the store scored like
one matching a rare word (measured: 0.78 overlap@10 with SQLite's search at 3,000
memories, benchmarks/team_search.py). FTS5's bm25 sums, over the phrases of the query,

    idf * f * (k1 + 1) / (f + k1 * (1 - b + b * length / average length))

with idf = ln((N - n + 0.5) / (n + 0.5)) (at least 1e-6), n the memories holding the
phrase, N all memories, f the column-weighted count of the phrase in the memory. Here:

- f is ts_rank_cd of the phrase alone with normalization 0, which for one word is
  exactly the sum of its positions' weights (content 1.0, tags and context 0.5).
- n and N come from `search_term_stats`: memories per lexeme, and a row '' holding the
  number of memories and their total length. Statement triggers on memory_item keep it
  exact (the store_generation trigger already makes writers take turns, so this adds no
  new lock order); bulk loads and the monthly re-index rebuild it with ts_stat. In a team
  schema it counts only that team's memories, like everything else there.
- length is the number of distinct lexemes (`length(search)`), FTS5 counts tokens:
  memories are short, the two rarely differ.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from memory_app.store.dialects.pg_tsquery import Operand

STATS_TABLE = "search_term_stats"
TOTALS = ""  # the lexeme of the totals row: no word stems to the empty string
K1 = 1.2
B = 0.75

STATS_DDL = (
    f'CREATE TABLE {STATS_TABLE} (lexeme TEXT COLLATE "C" PRIMARY KEY, '
    "docs BIGINT NOT NULL, tokens BIGINT NOT NULL DEFAULT 0)"
)


def _upkeep_sql(changes: str) -> str:
    """Add the (search, sign) rows of `changes` to the counts, in lexeme order."""
    return f"""
        INSERT INTO {STATS_TABLE} AS s (lexeme, docs, tokens)
        SELECT lexeme, sum(docs), sum(tokens) FROM (
            SELECT '{TOTALS}' AS lexeme, sign AS docs, sign * length(search) AS tokens
            FROM ({changes}) AS c
            UNION ALL
            SELECT x, sign, 0 FROM ({changes}) AS c, unnest(tsvector_to_array(search)) AS x
        ) AS d
        GROUP BY lexeme HAVING sum(docs) <> 0 OR sum(tokens) <> 0 ORDER BY lexeme
        ON CONFLICT (lexeme) DO UPDATE
        SET docs = s.docs + EXCLUDED.docs, tokens = s.tokens + EXCLUDED.tokens;"""


# An update counts only where the text changed (not for a use count or decay).
_CHANGED = (
    "SELECT {side}.search, {sign} AS sign FROM new_rows AS n JOIN old_rows AS o "
    "ON o.id = n.id WHERE n.search IS DISTINCT FROM o.search"
)
_UPDATED = f"{_CHANGED.format(side='n', sign=1)} UNION ALL {_CHANGED.format(side='o', sign=-1)}"
TRIGGER_NAMES = tuple(f"memory_item_search_stats_{op}" for op in ("insert", "update", "delete"))
TRIGGER_DDL = (
    f"""CREATE FUNCTION search_term_stats_upkeep() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            {_upkeep_sql("SELECT search, 1 AS sign FROM new_rows")}
        ELSIF TG_OP = 'DELETE' THEN
            {_upkeep_sql("SELECT search, -1 AS sign FROM old_rows")}
        ELSE
            {_upkeep_sql(_UPDATED)}
        END IF;
        RETURN NULL;
    END $$""",
    f"CREATE TRIGGER {TRIGGER_NAMES[0]} AFTER INSERT ON memory_item "
    "REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT "
    "EXECUTE FUNCTION search_term_stats_upkeep()",
    f"CREATE TRIGGER {TRIGGER_NAMES[1]} AFTER UPDATE ON memory_item "
    "REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT "
    "EXECUTE FUNCTION search_term_stats_upkeep()",
    f"CREATE TRIGGER {TRIGGER_NAMES[2]} AFTER DELETE ON memory_item "
    "REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT "
    "EXECUTE FUNCTION search_term_stats_upkeep()",
)


def refresh_stats(conn: Connection) -> None:
    """Count again from the memories (ts_stat: about 0.15 s at 100,000 memories)."""
    conn.exec_driver_sql(f"DELETE FROM {STATS_TABLE}")
    conn.exec_driver_sql(
        f"INSERT INTO {STATS_TABLE} (lexeme, docs) "
        "SELECT word, ndoc FROM ts_stat('SELECT search FROM memory_item')"
    )
    conn.exec_driver_sql(
        f"INSERT INTO {STATS_TABLE} (lexeme, docs, tokens) "
        f"SELECT '{TOTALS}', count(*), coalesce(sum(length(search)), 0) FROM memory_item"
    )


@dataclass(frozen=True)
class Bm25:
    """SQL pieces of the bm25 of one match: `tables` to CROSS JOIN after the memory
    table (aliased `ft`), `score` (higher is better) and the values `tables` binds
    (`score` binds none: store/item_queries.py binds only tables and conditions)."""

    tables: str
    score: str
    params: dict[str, Any]


def bm25(config: str, weights: str, operands: list[Operand], name: str) -> Bm25:
    """bm25 of `operands` (pg_tsquery.scored_operands) for the memory `ft`."""
    params: dict[str, Any] = {}
    frequencies = []
    terms = []
    saturation = f"{K1} * ({1 - B} + {B} * length(ft.search) / {name}_tot.avgdl)"
    for i, operand in enumerate(operands):
        words, query = f"{name}_w{i}", f"{name}_t{i}"
        params[words] = " ".join(operand.words)
        params[query] = operand.tsquery
        lexemes = f"unnest(tsvector_to_array(to_tsvector('{config}', :{words})))"
        if operand.prefix and len(operand.words) == 1:
            # Every lexeme the prefix reaches (a memory holding two counts twice: capped).
            stem = f"(SELECT x FROM {lexemes} AS x LIMIT 1)"
            docs = (
                f"(SELECT least(coalesce(sum(s.docs), 0), {name}_tot.n) FROM {STATS_TABLE} "
                f"AS s WHERE s.lexeme >= {stem} AND s.lexeme < {stem} || chr(1114111))"
            )
        else:
            # A phrase is in at most as many memories as its rarest word.
            docs = (
                f"(SELECT coalesce(min(coalesce(s.docs, 0)), 0) FROM {lexemes} AS l(x) "
                f"LEFT JOIN {STATS_TABLE} AS s ON s.lexeme = l.x)"
            )
        frequencies.append(f"{docs} AS d{i}, to_tsquery('{config}', :{query}) AS t{i}")
        n, d = f"{name}_tot.n", f"{name}_df.d{i}"
        idf = f"ln(greatest(({n} - {d} + 0.5) / ({d} + 0.5), 1.000001))"
        f = f"ts_rank_cd('{weights}', ft.search, {name}_df.t{i}, 0)"
        # f (k1 + 1) / (f + K) written with f once: (k1 + 1) (1 - K / (f + K)).
        terms.append(f"{idf} * {K1 + 1} * (1 - ({saturation}) / ({f} + {saturation}))")
    totals = (
        f"(SELECT coalesce(max(docs), 0)::float8 AS n, coalesce(max(tokens)::float8 / "
        f"nullif(max(docs), 0), 1) AS avgdl FROM {STATS_TABLE} WHERE lexeme = '{TOTALS}') "
        f"AS {name}_tot"
    )
    counted = ", ".join(frequencies) or "0 AS d"
    tables = f"CROSS JOIN {totals} CROSS JOIN LATERAL (SELECT {counted}) AS {name}_df"
    return Bm25(tables, " + ".join(terms) or "0", params)
