"""Durable fleet state: SQLAlchemy 2 + Alembic; SQLite (WAL) by default, PostgreSQL by URL."""

from fabrictwin.fleet.store.store import AuditEntry, RolloutRow, Store, default_url

__all__ = ["AuditEntry", "RolloutRow", "Store", "default_url"]
