"""Web test fixtures: an app over a fleet store filled by the fleet code itself.

The store is filled by a real rollout (the fleet ``Executor``) and a real inventory read
(``fleet.inventory.inventory``) against the fleet tests' fake BMCs (``tests/fleet/fakebmc.py``),
so the web pages read what the control plane really writes, not rows shaped by hand.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from fabrictwin.fleet.clock import ManualClock
from fabrictwin.fleet.executor import Credentials, Executor, RolloutResult
from fabrictwin.fleet.inventory import inventory
from fabrictwin.fleet.redfish import Http
from fabrictwin.fleet.store import Store
from fabrictwin.web import WebSettings, create_app

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"

# The fleet tests' fake BMC fleet lives in tests/fleet; pytest's importlib mode does not put the
# repository root on sys.path, so add it to import that package rather than copy the fake.
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.fleet.fakebmc import FakeFleet, image_server  # noqa: E402
from tests.fleet.helpers import refs_for, rollout_spec  # noqa: E402


@dataclass(frozen=True)
class FilledStore:
    """A store after one rollout and one inventory read of a 6-DPU fake fleet."""

    url: str
    result: RolloutResult
    names: list[str]


async def _fill(fleet: FakeFleet, store: Store) -> RolloutResult:
    async with Http(16, transport=image_server(fleet)) as http:
        refs = refs_for(fleet)
        records = await inventory(http, refs, "root", "0penBmc")
        rows = [
            {**r.model_dump(), "inventory": rec.to_record()} for r, rec in zip(refs, records, strict=True)
        ]
        store.upsert_devices(rows, seen_at=fleet.now)
        clock = ManualClock(fleet.now, on_advance=fleet.advance)
        spec = rollout_spec("bfb-2.9.2", max_unavailable={"rack": 3}, failure_budget=0.5)
        ex = Executor(spec, refs, store, http, clock, Credentials("root", "0penBmc"))
        return await ex.start()


@pytest.fixture(scope="session")
def filled(tmp_path_factory: pytest.TempPathFactory) -> FilledStore:
    url = f"sqlite:///{tmp_path_factory.mktemp('web') / 'fleet.db'}"
    fleet = FakeFleet(6, racks=2)
    fleet.devices[3].fail_install = True  # one rollback, so phase counts are not all 'done'
    store = Store(url)
    try:
        result = asyncio.run(_fill(fleet, store))
    finally:
        store.close()
    return FilledStore(url, result, [f"dpu{d.index:04d}" for d in fleet.devices])


@pytest.fixture(scope="session")
def client(filled: FilledStore) -> Iterator[TestClient]:
    app = create_app(WebSettings(store_url=filled.url, examples_dir=EXAMPLES))
    with TestClient(app) as c:
        yield c
