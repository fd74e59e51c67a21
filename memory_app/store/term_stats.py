"""How common each query word is in the memory index, to leave out the commonest.

Ranking an OR query costs a bm25 evaluation per matching row: at 100,000 memories a
task of eight everyday words matched half the store and took 44 ms. Words matching a
large share of the store add little to bm25 (their IDF is near zero), so the ranker
drops the commonest while the rarer ones already match enough rows.

Document frequencies come from an fts5vocab table over the index; the index stores
stems, so each query word is first stemmed by the same tokenizer in a private
in-memory table (0.14 ms for eight words).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence

from sqlalchemy import Connection

from memory_app.store.sqlite_driver import sqlite_connection

VOCAB_TABLE = "memory_fts_terms"
TOKENIZER = "porter unicode61 remove_diacritics 2"  # the index's (store/dialects/sqlite.py)
_default: Stemmer | None = None
_default_lock = threading.Lock()


class Stemmer:
    """The index's tokenizer applied to single words: word → its indexed term (None
    when the tokenizer keeps nothing of it)."""

    def __init__(self, tokenizer: str) -> None:
        self._lock = threading.Lock()
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.execute(f"CREATE VIRTUAL TABLE words USING fts5(w, tokenize='{tokenizer}')")
        self._db.execute("CREATE VIRTUAL TABLE terms USING fts5vocab(words, instance)")

    def stems(self, words: Sequence[str]) -> list[str | None]:
        with self._lock:
            self._db.execute("DELETE FROM words")
            self._db.executemany(
                "INSERT INTO words(rowid, w) VALUES (?, ?)",
                [(n, w) for n, w in enumerate(words, 1)],
            )
            found = dict(self._db.execute("SELECT doc, term FROM terms"))
        return [found.get(n) for n in range(1, len(words) + 1)]


def document_frequencies(conn: Connection, terms: Sequence[str | None]) -> list[int]:
    """How many memories hold each term (0 for None or an unknown term)."""
    # One indexed lookup per term through the driver: an IN list scans the vocabulary
    # (0.9 ms), and SQLAlchemy's per-statement overhead was most of the cost (0.25 ms).
    cursor = sqlite_connection(conn.connection).cursor()
    sql = f"SELECT doc FROM {VOCAB_TABLE} WHERE term = ?"
    try:
        counts = []
        for term in terms:
            row = cursor.execute(sql, (term,)).fetchone() if term else None
            counts.append(int(row[0]) if row else 0)
        return counts
    finally:
        cursor.close()


def default_stemmer() -> Stemmer:
    """One stemmer per process, made on first use."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Stemmer(TOKENIZER)
        return _default
