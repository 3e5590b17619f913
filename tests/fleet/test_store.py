"""The store keeps inventory, rollouts, device states and the audit log, on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from fabrictwin.errors import NotFound, SpecError
from fabrictwin.fleet.store import AuditEntry, Store


def test_migrations_are_idempotent_and_tables_exist(store: Store) -> None:
    store.migrate()
    store.migrate()
    assert store.devices() == []
    assert store.rollouts() == []


def test_inventory_upsert_replaces_a_device_record(store: Store) -> None:
    store.upsert_devices([{"name": "a", "bmc_url": "http://127.0.0.2:8000", "os": "v1"}], seen_at=1.0)
    store.upsert_devices([{"name": "a", "bmc_url": "http://127.0.0.2:8000", "os": "v2"}], seen_at=2.0)
    assert store.devices() == [{"name": "a", "bmc_url": "http://127.0.0.2:8000", "os": "v2"}]


def test_a_rollout_round_trips_with_states_and_audit_in_order(store: Store) -> None:
    store.create_rollout("r1", {"name": "r1"}, {"makespan_s": 10.0}, started_at=0.0)
    store.save(
        "r1", [("d1", "draining", {"phase": "draining", "n": 1})], [AuditEntry("d1", 1.0, "drain", {})]
    )
    store.save(
        "r1", [("d1", "installing", {"phase": "installing"})], [AuditEntry("d1", 2.0, "install", {"t": 5})]
    )
    assert store.states("r1") == {"d1": {"phase": "installing"}}
    assert [(e.t_s, e.action) for e in store.audit("r1")] == [(1.0, "drain"), (2.0, "install")]
    store.set_status("r1", "halted", "failure budget")
    row = store.rollout("r1")
    assert (row.status, row.detail, row.plan) == ("halted", "failure budget", {"makespan_s": 10.0})


def test_a_duplicate_rollout_name_is_refused_and_an_unknown_one_is_not_found(store: Store) -> None:
    store.create_rollout("r1", {}, {}, started_at=0.0)
    with pytest.raises(SpecError, match="already exists"):
        store.create_rollout("r1", {}, {}, started_at=0.0)
    with pytest.raises(NotFound, match="no rollout named 'nope'"):
        store.rollout("nope")


def test_sqlite_runs_in_wal_mode(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import sqlalchemy as sa

    s = Store(f"sqlite:///{tmp_path / 'x.db'}")
    with s.engine.connect() as conn:
        assert conn.execute(sa.text("PRAGMA journal_mode")).scalar() == "wal"
    s.close()
