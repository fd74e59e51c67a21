"""The SQLite dialect: pragmas, migrations, FTS5 triggers and query sanitizing."""

from __future__ import annotations

import hashlib
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text

from memory_app.store.database import Database
from memory_app.store.dialects import sqlite as sqlite_dialect
from memory_app.store.errors import DatabaseTooNewError, EmptyQueryError, UnsupportedDatabaseError
from memory_app.store.fts_query import match_expression
from memory_app.store.tables import AuditEventRow, CategoryRow, MemoryItemRow, ResourceRow
from tests.helpers import make_version_2, make_version_4, make_version_6


def make_db(tmp_path: Path, name: str = "memory.db") -> Database:
    return Database(f"sqlite:///{tmp_path / name}", backup_dir=tmp_path / "backups")


def add_item(db: Database, content: str, **extra: object) -> int:
    with db.writing() as session:
        if session.get(CategoryRow, "coding_preferences") is None:
            session.add(CategoryRow(key="coding_preferences", name="Coding preferences"))
            session.flush()
        row = MemoryItemRow(
            category="coding_preferences",
            content=content,
            content_key=content.lower(),
            confidence=0.9,
            **extra,
        )
        session.add(row)
        session.flush()
        assert row.id is not None
        return row.id


def search(db: Database, query: str, **kwargs: object) -> list[int]:
    with db.reading() as session:
        hits = db.dialect.search_item_ids(session.connection(), query, limit=10, **kwargs)
    return [item_id for item_id, _ in hits]


def test_connections_use_the_measured_pragmas(tmp_path: Path) -> None:
    db = make_db(tmp_path)
    with db.reading() as session:
        pragma = {
            name: session.execute(text(f"PRAGMA {name}")).scalar()
            for name in (
                "journal_mode",
                "foreign_keys",
                "busy_timeout",
                "synchronous",
                "user_version",
            )
        }
    assert pragma == {
        "journal_mode": "wal",
        "foreign_keys": 1,
        "busy_timeout": 5000,
        "synchronous": 1,  # NORMAL
        "user_version": sqlite_dialect.SqliteDialect.schema_version,
    }


def test_reopening_does_not_migrate_again(tmp_path: Path) -> None:
    make_db(tmp_path).close()
    again = make_db(tmp_path)
    assert again.previous_version == sqlite_dialect.SqliteDialect.schema_version
    assert not (tmp_path / "backups").exists()


def test_a_database_from_a_newer_version_is_refused_and_left_untouched(tmp_path: Path) -> None:
    make_db(tmp_path).close()
    path = tmp_path / "memory.db"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 99")
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(DatabaseTooNewError, match="schema version 99") as caught:
        make_db(tmp_path)
    assert "Upgrade Memory Curator" in str(caught.value)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_migrating_backs_up_first_and_keeps_data_and_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = make_db(tmp_path)
    item = add_item(db, "Prefer pathlib over os.path")
    db.close()

    def add_column(conn: object) -> None:
        conn.exec_driver_sql("ALTER TABLE memory_item ADD COLUMN note_v2 TEXT")  # type: ignore[attr-defined]

    current = sqlite_dialect.SqliteDialect.schema_version
    monkeypatch.setattr(sqlite_dialect, "MIGRATIONS", (*sqlite_dialect.MIGRATIONS, add_column))
    monkeypatch.setattr(sqlite_dialect.SqliteDialect, "schema_version", current + 1)
    upgraded = make_db(tmp_path)
    assert upgraded.previous_version == current
    backups = list((tmp_path / "backups").glob(f"memory.v{current}.*.bak"))
    assert len(backups) == 1
    with sqlite3.connect(backups[0]) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == current
        assert conn.execute("SELECT content FROM memory_item").fetchall() == [
            ("Prefer pathlib over os.path",)
        ]
    assert search(upgraded, "pathlib") == [item]
    with upgraded.reading() as session:
        assert session.execute(text("PRAGMA user_version")).scalar() == current + 1
        session.execute(text("SELECT note_v2 FROM memory_item")).all()


def test_a_version_1_store_gains_searchable_context_and_a_generation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patch:
        patch.setattr(sqlite_dialect, "MIGRATIONS", sqlite_dialect.MIGRATIONS[:1])
        patch.setattr(sqlite_dialect.SqliteDialect, "schema_version", 1)
        old = make_db(tmp_path)
        item_id = add_item(old, "Prefer pathlib over os.path", context="reviewing the importer")
        old.close()
    upgraded = make_db(tmp_path)
    assert upgraded.previous_version == 1
    assert list((tmp_path / "backups").glob("memory.v1.*.bak"))
    with upgraded.reading() as session:
        found = session.execute(
            text("SELECT rowid FROM memory_fts WHERE memory_fts MATCH 'importer'")
        ).all()
        assert found == [(item_id,)]
        before = session.execute(text("SELECT value FROM store_generation")).scalar_one()
    assert search(upgraded, "pathlib") == [item_id]
    assert search(upgraded, "importer") == []  # the Memories table ignores context
    with upgraded.writing() as session:
        session.execute(text("UPDATE memory_item SET pinned = 1"))
    with upgraded.reading() as session:
        after = session.execute(text("SELECT value FROM store_generation")).scalar_one()
    assert after == before + 1


def test_only_sqlite_and_postgresql_urls_are_accepted() -> None:
    with pytest.raises(UnsupportedDatabaseError, match="'mysql' is not supported"):
        Database("mysql://localhost/memory")


def test_fts_follows_inserts_updates_and_deletes(tmp_path: Path) -> None:
    db = make_db(tmp_path)
    first = add_item(db, "Always use async/await, never .then() chains")
    second = add_item(db, "Indent with four spaces")
    assert search(db, "await") == [first]
    assert search(db, "chaining") == [first]  # porter stemming
    with db.writing() as session:
        row = session.get(MemoryItemRow, second)
        assert row is not None
        row.content = "Indent with tabs"
        session.add(row)
    assert search(db, "spaces") == []
    assert search(db, "tabs") == [second]
    with db.writing() as session:
        session.delete(session.get(MemoryItemRow, first))
    assert search(db, "await") == []
    with db.reading() as session:
        assert db.dialect.check_search_index(session.connection()) == []


def test_status_and_category_filters(tmp_path: Path) -> None:
    db = make_db(tmp_path)
    active = add_item(db, "Use ruff for linting")
    gone = add_item(db, "Use flake8 for linting", status="deleted")
    assert search(db, "linting") == [active]
    assert set(search(db, "linting", statuses=("active", "deleted"))) == {active, gone}
    assert search(db, "linting", category="bug_patterns") == []


@pytest.mark.parametrize(
    "query", ["don't", "C++", "foo-bar", "AND", "OR NOT", '"unbalanced', "NEAR(a b)", "col:val*"]
)
def test_raw_user_text_never_breaks_match(tmp_path: Path, query: str) -> None:
    db = make_db(tmp_path)
    add_item(db, "don't write C++ like foo-bar AND stuff near col val")
    assert isinstance(search(db, query, match_any=True), list)


def test_every_word_is_quoted() -> None:
    assert match_expression("Avoid C++'s foo-bar NEAR") == '"avoid" "c" "foo" "bar" "near"'
    # Stop words go, unless nothing else is left.
    assert match_expression("Don't use C++") == '"use" "c"'
    assert match_expression("what is it") == '"what" "is" "it"'
    assert match_expression("tabs", columns=("content", "tags")) == '{content tags} : ("tabs")'
    assert match_expression("tabs spaces", match_any=True) == '"tabs" OR "spaces"'
    with pytest.raises(EmptyQueryError, match="type at least one word"):
        match_expression("  -- ** ")


def test_bulk_loading_rebuilds_the_index_and_restores_triggers(tmp_path: Path) -> None:
    db = make_db(tmp_path)
    add_item(db, "seed row so the category exists")
    with db.writing() as session:
        conn = session.connection()
        with db.dialect.bulk_loading(conn):
            conn.execute(
                MemoryItemRow.__table__.insert(),  # type: ignore[attr-defined]
                [
                    {
                        "category": "coding_preferences",
                        "type": "fact",
                        "content": f"bulk memory number {n} about widgets",
                        "content_key": f"bulk {n}",
                        "confidence": 0.8,
                        "importance": 0.5,
                        "scope": "global",
                        "tags": [],
                        "extracted_at": datetime(2026, 1, 1, tzinfo=UTC),
                        "updated_at": datetime(2026, 1, 1, tzinfo=UTC),
                        "access_count": 0,
                        "reinforcement_count": 0,
                        "pinned": False,
                        "status": "active",
                    }
                    for n in range(50)
                ],
            )
    assert len(search(db, "widgets")) == 10
    later = add_item(db, "inserted after the bulk load about gadgets")
    assert search(db, "gadgets") == [later]
    with db.reading() as session:
        assert db.dialect.check_search_index(session.connection()) == []


def test_naive_datetimes_are_rejected(tmp_path: Path) -> None:
    db = make_db(tmp_path)
    with pytest.raises(Exception, match="naive datetime"):
        add_item(db, "when?", extracted_at=datetime(2026, 1, 1))


def test_datetimes_round_trip_with_their_zone(tmp_path: Path) -> None:
    db = make_db(tmp_path)
    stamp = datetime(2026, 3, 4, 5, 6, 7, 890123, tzinfo=UTC)
    item = add_item(db, "timestamped", extracted_at=stamp)
    with db.reading() as session:
        row = session.get(MemoryItemRow, item)
        assert row is not None
        assert row.extracted_at == stamp
        assert row.extracted_at.tzinfo is not None


def test_a_version_2_store_gains_the_maintenance_tables_and_columns(tmp_path: Path) -> None:
    db = make_db(tmp_path)
    item_id = add_item(db, "Prefer pathlib over os.path")
    db.close()
    make_version_2(tmp_path / "memory.db")
    upgraded = make_db(tmp_path)
    assert upgraded.previous_version == 2
    assert list((tmp_path / "backups").glob("memory.v2.*.bak"))
    with upgraded.reading() as session:
        row = session.get(MemoryItemRow, item_id)
        assert row is not None and row.decay_factor == 1.0
        session.execute(text("SELECT digest FROM category_summary")).all()
        session.execute(text("SELECT group_id FROM maintenance_run")).all()
        assert session.execute(text("SELECT count(*) FROM maintenance_change")).scalar() == 0
        # Version 4: usage feedback, and a resource's index follows an update of its text.
        assert (row.injected_count, row.cited_count, row.ignored_count) == (0, 0, 0)
        assert row.branch is None  # version 5: no conversation, no branch
        assert session.execute(text("SELECT count(*) FROM injection_memory")).scalar() == 0
        triggers = session.execute(
            text("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name = 'resource_au'")
        ).all()
        assert len(triggers) == 1
    assert search(upgraded, "pathlib") == [item_id]


def _schema(db: Database) -> list[tuple[str, str]]:
    """The memory table's columns (name, type) and its indexes, in order."""
    with db.reading() as session:
        columns = session.execute(text("PRAGMA table_info(memory_item)")).all()
        indexes = session.execute(
            text(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' "
                "AND tbl_name = 'memory_item' ORDER BY name"
            )
        ).all()
    return sorted((c[1], c[2]) for c in columns) + [(i[0], i[1] or "") for i in indexes]


def test_a_version_4_store_gains_each_memorys_branch_from_its_conversation(
    tmp_path: Path,
) -> None:
    """Version 5 (seed 001 branch memory): the column and its index, as a new store has
    them, and the memories already stored take their conversation's branch, where it
    recorded one ("" outside git and "HEAD" on a detached checkout record none)."""
    fresh = make_db(tmp_path, "fresh.db")
    wanted = _schema(fresh)
    fresh.close()
    db = make_db(tmp_path)
    ids: dict[str, int] = {}
    with db.writing() as session:
        for n, branch in enumerate(("feature/auth", "main", "", "HEAD", None)):
            resource = ResourceRow(
                content_hash=f"h{n}", source_kind="claude-code", text="t", branch=branch
            )
            session.add(resource)
            session.flush()
            ids[str(branch)] = resource.id or 0
    learnt = {name: add_item(db, f"rule {name}", source_resource_id=r) for name, r in ids.items()}
    by_hand = add_item(db, "said by hand")
    db.close()
    make_version_4(tmp_path / "memory.db")

    upgraded = make_db(tmp_path)
    assert upgraded.previous_version == 4
    assert list((tmp_path / "backups").glob("memory.v4.*.bak"))
    assert _schema(upgraded) == wanted
    with upgraded.reading() as session:
        got = {name: session.get(MemoryItemRow, i).branch for name, i in learnt.items()}  # type: ignore[union-attr]
        assert session.get(MemoryItemRow, by_hand).branch is None  # type: ignore[union-attr]
    assert got == {
        "feature/auth": "feature/auth",
        "main": "main",
        "": None,
        "HEAD": None,
        "None": None,
    }
    assert search(upgraded, "rule") != []  # the search index is untouched


def test_a_memory_seen_on_several_branches_before_version_5_becomes_base(
    tmp_path: Path,
) -> None:
    """Version 5 takes the branch of every conversation a memory was seen in (its own,
    those that reinforced it, and those of the duplicates merged into it), as the rule
    of later imports does: one branch throughout keeps it, more than one (or one on no
    branch) makes it base."""
    db = make_db(tmp_path)
    with db.writing() as session:
        conversations = {}
        for n, branch in enumerate(("feature/auth", "feature/auth", "main", "", "feature/pay")):
            resource = ResourceRow(
                content_hash=f"c{n}", source_kind="claude-code", text="t", branch=branch
            )
            session.add(resource)
            session.flush()
            conversations[n] = resource.id or 0
    auth, auth_again, main, nowhere, pay = conversations.values()
    item = {
        name: add_item(db, f"rule {name}", source_resource_id=auth)
        for name in ("same", "main", "nowhere", "undone", "by hand", "gone", "merged", "alone")
    }
    duplicate = add_item(db, "rule merged, said again", source_resource_id=pay)

    def event(item_id: int, action: str, note: str, group: str = "g", actor: str = "x") -> None:
        session.add(
            AuditEventRow(actor=actor, action=action, item_id=item_id, group_id=group, note=note)
        )

    with db.writing() as session:
        event(item["same"], "reinforce", f"seen again in conversation #{auth_again}")
        event(item["main"], "reinforce", f"seen again in conversation #{auth_again}")
        event(item["main"], "reinforce", f"seen again in conversation #{main}")
        event(item["nowhere"], "reinforce", f"seen again in conversation #{nowhere}")
        event(item["undone"], "reinforce", f"seen again in conversation #{main}", "g-undone")
        event(0, "undo", "g-undone", "g-undo")
        event(item["by hand"], "reinforce", "remembered again by hand")
        event(item["gone"], "reinforce", "seen again in conversation #9999")  # deleted since
        event(item["merged"], "reinforce", f"merged {duplicate}")
        event(duplicate, "merge", f"merged into memory {item['merged']}")
        row = session.get(MemoryItemRow, duplicate)
        assert row is not None
        row.status, row.superseded_by = "superseded", item["merged"]
    db.close()
    make_version_4(tmp_path / "memory.db")

    upgraded = make_db(tmp_path)
    assert upgraded.previous_version == 4
    with upgraded.reading() as session:
        got = {name: session.get(MemoryItemRow, i).branch for name, i in item.items()}  # type: ignore[union-attr]
        assert session.get(MemoryItemRow, duplicate).branch == "feature/pay"  # type: ignore[union-attr]
    assert got == {
        "same": "feature/auth",  # seen again on its branch
        "main": None,  # and on main too: base
        "nowhere": None,  # and on no branch
        "undone": "feature/auth",  # the reinforcement on main was undone
        "by hand": "feature/auth",  # said again by hand: no conversation, no branch
        "gone": None,  # a conversation no longer stored: its branch is not known
        "merged": None,  # its duplicate was learnt on feature/pay
        "alone": "feature/auth",
    }


def _table_sql(db: Database, table: str) -> list[str]:
    """A table's CREATE statements (the table and its indexes), as SQLite keeps them."""
    with db.reading() as session:
        rows = session.execute(
            text("SELECT sql FROM sqlite_master WHERE tbl_name = :t AND sql IS NOT NULL"),
            {"t": table},
        ).all()
    return sorted(r[0] for r in rows)


def test_a_version_6_store_gains_the_link_table_and_its_discovered_links(
    tmp_path: Path,
) -> None:
    """Version 7 (links between memories): the table as a new store has it, one link
    per (source, target, kind), and the stored memories' links discovered on the way
    (here the supersedes link a change of mind left in `superseded_by`)."""
    fresh = make_db(tmp_path, "fresh.db")
    wanted = _table_sql(fresh, "memory_link")
    fresh.close()
    assert any("UNIQUE (source_id, target_id, kind)" in sql for sql in wanted)
    db = make_db(tmp_path)
    older = add_item(db, "indent with tabs", status="superseded")
    newer = add_item(db, "indent with four spaces")
    with db.writing() as session:
        row = session.get(MemoryItemRow, older)
        assert row is not None
        row.superseded_by = newer
    db.close()
    make_version_6(tmp_path / "memory.db")

    upgraded = make_db(tmp_path)
    assert upgraded.previous_version == 6
    assert list((tmp_path / "backups").glob("memory.v6.*.bak"))
    assert _table_sql(upgraded, "memory_link") == wanted
    with upgraded.reading() as session:
        links = session.execute(
            text("SELECT source_id, target_id, kind, origin FROM memory_link")
        ).all()
    assert [tuple(r) for r in links] == [(newer, older, "supersedes", "discovered")]
    with pytest.raises(Exception, match="UNIQUE"), upgraded.writing() as session:
        session.execute(
            text(
                "INSERT INTO memory_link (source_id, target_id, kind, origin, strength, "
                "created_at) VALUES (:s, :t, 'supersedes', 'person', 1, '2024-01-01')"
            ),
            {"s": newer, "t": older},
        )
