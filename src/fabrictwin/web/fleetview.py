"""Fleet state for the web app, read through the fleet store API (never SQL here)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from fabrictwin.fleet import service
from fabrictwin.fleet.store import Store


def inventory(store: Store) -> list[dict[str, Any]]:
    """Every stored inventory record, by device name."""
    return store.devices()


def inventory_columns(records: list[dict[str, Any]]) -> list[str]:
    """Columns for an inventory table: ``name`` first, then every other key in first-seen order."""
    cols: dict[str, None] = {"name": None}
    for rec in records:
        cols.update(dict.fromkeys(rec))
    return list(cols)


def rollout_summaries(store: Store) -> list[dict[str, Any]]:
    """Each stored rollout with its status and phase counts, by name."""
    out = []
    for row in store.rollouts():
        st = service.rollout_status(store, row.name)
        out.append(
            {
                "name": st.name,
                "status": st.status,
                "detail": st.detail,
                "started_at": row.started_at,
                "devices": sum(st.phases.values()),
                "phases": dict(sorted(st.phases.items())),
            }
        )
    return out


def rollout_detail(store: Store, name: str) -> dict[str, Any]:
    """One rollout's status as JSON: phases, failure reasons, pushes, plan, last actions.

    Raises:
        NotFound: no rollout of that name in the store.
    """
    st = service.rollout_status(store, name)
    data = asdict(st)
    data["phases"] = dict(sorted(st.phases.items()))
    return data
