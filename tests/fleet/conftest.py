"""Fleet test fixtures: a store on SQLite and, when Debian's PostgreSQL 15 is installed, on PostgreSQL.

The PostgreSQL server is initdb'd once per test session on loopback (tooling-notes.md recipe).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from fabrictwin.fleet.store import Store

PG_BIN = Path("/usr/lib/postgresql/15/bin")
PG_PORT = 55432 + os.getpid() % 1000


def _as_postgres(cmd: str) -> None:
    if os.geteuid() == 0:
        subprocess.run(["su", "postgres", "-c", cmd], check=True, capture_output=True)
    else:
        subprocess.run(["bash", "-c", cmd], check=True, capture_output=True)


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """URL of a throw-away PostgreSQL 15 server; skips when it is not installed."""
    if os.environ.get("FABRICTWIN_PG_URL"):
        yield os.environ["FABRICTWIN_PG_URL"]
        return
    if not (PG_BIN / "initdb").exists():
        pytest.skip("PostgreSQL 15 is not installed (/usr/lib/postgresql/15/bin/initdb); .ci/run installs it")
    base = Path(tempfile.mkdtemp(prefix="ft-pg-"))
    if os.geteuid() == 0:
        shutil.chown(base, "postgres", "postgres")
    data = base / "data"
    _as_postgres(f"{PG_BIN}/initdb -D {data} -A trust -U postgres --no-sync")
    opts = f"-p {PG_PORT} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off"
    _as_postgres(f'{PG_BIN}/pg_ctl -D {data} -l {base}/log -w -o "{opts}" start')
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{PG_PORT}/postgres"
    finally:
        _as_postgres(f"{PG_BIN}/pg_ctl -D {data} -m fast -w stop")
        shutil.rmtree(base, ignore_errors=True)


def _reset_pg(url: str) -> None:
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
    engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """A fresh store on SQLite, then on PostgreSQL."""
    if request.param == "sqlite":
        s = Store(f"sqlite:///{tmp_path / 'fleet.db'}")
    else:
        url = request.getfixturevalue("pg_url")
        _reset_pg(url)
        s = Store(url)
    yield s
    s.close()
