"""The fleet store: SQLite (WAL) in a data directory by default, PostgreSQL by URL.

Everything the control plane must not forget lives here: the inventory, each rollout with its
spec and plan, each device's rollout state (one JSON record, written through the executor's
``to_record``), and the append-only audit log. Schema changes go through Alembic migrations
shipped in ``fleet/store/migrations``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Engine

from fabrictwin.errors import NotFound, SpecError
from fabrictwin.fleet.store import schema

MIGRATIONS = Path(__file__).parent / "migrations"


def default_url(data_dir: str | os.PathLike[str] | None = None) -> str:
    """SQLite file in ``data_dir`` (default ``$FABRICTWIN_DATA`` or ``~/.local/share/fabrictwin``)."""
    base = Path(data_dir or os.environ.get("FABRICTWIN_DATA") or Path.home() / ".local/share/fabrictwin")
    base.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{base / 'fleet.db'}"


@dataclass(frozen=True)
class AuditEntry:
    """One action taken on one device (``device`` is ``"*"`` for rollout-wide actions)."""

    device: str
    t_s: float
    action: str
    detail: dict[str, Any]


@dataclass(frozen=True)
class RolloutRow:
    """A stored rollout."""

    name: str
    spec: dict[str, Any]
    plan: dict[str, Any]
    status: str
    detail: str
    started_at: float


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    # WAL lets readers (rollout status) run while the executor writes; NORMAL sync is durable
    # against process kills (our crash model), only an OS crash can lose the last commit.
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.close()


class Store:
    """Durable fleet state behind one SQLAlchemy engine."""

    def __init__(self, url: str | None = None) -> None:
        self.url = url or default_url()
        if self.url.startswith("postgresql://"):
            self.url = "postgresql+psycopg://" + self.url.removeprefix("postgresql://")
        self.engine: Engine = sa.create_engine(self.url, future=True)
        if self.engine.dialect.name == "sqlite":
            sa.event.listen(self.engine, "connect", _sqlite_pragmas)
        self.migrate()

    def migrate(self) -> None:
        """Bring the schema to the newest migration (idempotent)."""
        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        with self.engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")

    def close(self) -> None:
        """Release pooled connections."""
        self.engine.dispose()

    # inventory -------------------------------------------------------------------------------

    def upsert_devices(self, records: Iterable[dict[str, Any]], seen_at: float) -> None:
        """Insert or replace inventory records (each has ``name`` and ``bmc_url``)."""
        rows = [
            {"name": r["name"], "bmc_url": r["bmc_url"], "record": r, "seen_at": seen_at} for r in records
        ]
        with self.engine.begin() as conn:
            names = [r["name"] for r in rows]
            for chunk in range(0, len(names), 500):
                conn.execute(
                    sa.delete(schema.devices).where(schema.devices.c.name.in_(names[chunk : chunk + 500]))
                )
            if rows:
                conn.execute(sa.insert(schema.devices), rows)

    def devices(self) -> list[dict[str, Any]]:
        """Every inventory record, by name."""
        with self.engine.connect() as conn:
            result = conn.execute(sa.select(schema.devices.c.record).order_by(schema.devices.c.name))
            return [dict(r[0]) for r in result]

    # rollouts --------------------------------------------------------------------------------

    def create_rollout(
        self,
        name: str,
        spec: dict[str, Any],
        plan: dict[str, Any],
        started_at: float,
        states: Sequence[tuple[str, str, dict[str, Any]]] = (),
        entries: Sequence[AuditEntry] = (),
    ) -> None:
        """Record a new rollout with its first device states, in one transaction.

        Raises :class:`SpecError` when the name is taken.
        """
        with self.engine.begin() as conn:
            exists = conn.execute(
                sa.select(schema.rollouts.c.name).where(schema.rollouts.c.name == name)
            ).first()
            if exists:
                raise SpecError(
                    f"a rollout named {name!r} already exists; use 'rollout resume' or a new name"
                )
            conn.execute(
                sa.insert(schema.rollouts).values(
                    name=name, spec=spec, plan=plan, status="running", detail="", started_at=started_at
                )
            )
            self._write(conn, name, states, entries)

    def exists(self, name: str) -> bool:
        """True when a rollout of this name is stored."""
        with self.engine.connect() as conn:
            query = sa.select(schema.rollouts.c.name).where(schema.rollouts.c.name == name)
            return conn.execute(query).first() is not None

    def rollout(self, name: str) -> RolloutRow:
        """The stored rollout. Raises :class:`NotFound` when there is none of that name."""
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(schema.rollouts).where(schema.rollouts.c.name == name)).first()
        if row is None:
            raise NotFound(f"no rollout named {name!r} in {self.url}")
        return RolloutRow(row.name, dict(row.spec), dict(row.plan), row.status, row.detail, row.started_at)

    def rollouts(self) -> list[RolloutRow]:
        """All rollouts, by name."""
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(schema.rollouts).order_by(schema.rollouts.c.name)).all()
        return [
            RolloutRow(r.name, dict(r.spec), dict(r.plan), r.status, r.detail, r.started_at) for r in rows
        ]

    def set_status(self, name: str, status: str, detail: str = "") -> None:
        """Set a rollout's status (running, halted, completed) and a reason."""
        with self.engine.begin() as conn:
            conn.execute(
                sa.update(schema.rollouts)
                .where(schema.rollouts.c.name == name)
                .values(status=status, detail=detail)
            )

    def save(
        self, rollout: str, states: Sequence[tuple[str, str, dict[str, Any]]], entries: Sequence[AuditEntry]
    ) -> None:
        """Write device states ``(device, phase, record)`` and audit entries in one transaction."""
        if not states and not entries:
            return
        with self.engine.begin() as conn:
            self._write(conn, rollout, states, entries)

    @staticmethod
    def _write(
        conn: sa.Connection,
        rollout: str,
        states: Sequence[tuple[str, str, dict[str, Any]]],
        entries: Sequence[AuditEntry],
    ) -> None:
        if states:
            names = [s[0] for s in states]
            table = schema.device_states
            for i in range(0, len(names), 500):
                conn.execute(
                    sa.delete(table).where(table.c.rollout == rollout, table.c.device.in_(names[i : i + 500]))
                )
            conn.execute(
                sa.insert(table),
                [{"rollout": rollout, "device": d, "phase": p, "record": r} for d, p, r in states],
            )
        if entries:
            conn.execute(
                sa.insert(schema.audit),
                [
                    {
                        "rollout": rollout,
                        "device": e.device,
                        "t_s": e.t_s,
                        "action": e.action,
                        "detail": e.detail,
                    }
                    for e in entries
                ],
            )

    def states(self, rollout: str) -> dict[str, dict[str, Any]]:
        """Device -> stored state record of a rollout."""
        table = schema.device_states
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(table.c.device, table.c.record).where(table.c.rollout == rollout))
            return {r.device: dict(r.record) for r in rows}

    def audit(self, rollout: str) -> list[AuditEntry]:
        """The audit log of a rollout, in the order written."""
        table = schema.audit
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(table).where(table.c.rollout == rollout).order_by(table.c.seq))
            return [AuditEntry(r.device, r.t_s, r.action, dict(r.detail)) for r in rows]
