"""Persistence: SQLModel tables, the database engine, migrations and repositories."""
