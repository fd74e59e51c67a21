"""The sqlite3 connection under SQLAlchemy's pool proxy, for what only the driver offers
(PRAGMA outside a transaction, backups, SQL functions, a bare cursor on a hot path)."""

from __future__ import annotations

import sqlite3

from sqlalchemy.pool import PoolProxiedConnection


def sqlite_connection(raw: PoolProxiedConnection) -> sqlite3.Connection:
    driver = raw.driver_connection
    if not isinstance(driver, sqlite3.Connection):
        raise TypeError(f"expected a sqlite3 connection, got {type(driver).__name__}")
    return driver
