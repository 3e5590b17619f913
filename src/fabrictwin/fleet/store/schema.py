"""Tables of the fleet store (the Alembic migrations create them; this is the query-side view)."""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

devices = sa.Table(
    "devices",
    metadata,
    sa.Column("name", sa.String(200), primary_key=True),
    sa.Column("bmc_url", sa.String(500), nullable=False),
    sa.Column("record", sa.JSON, nullable=False),
    sa.Column("seen_at", sa.Float, nullable=False),
)

rollouts = sa.Table(
    "rollouts",
    metadata,
    sa.Column("name", sa.String(200), primary_key=True),
    sa.Column("spec", sa.JSON, nullable=False),
    sa.Column("plan", sa.JSON, nullable=False),
    sa.Column("status", sa.String(40), nullable=False),
    sa.Column("detail", sa.Text, nullable=False, server_default=""),
    sa.Column("started_at", sa.Float, nullable=False),
)

device_states = sa.Table(
    "device_states",
    metadata,
    sa.Column("rollout", sa.String(200), sa.ForeignKey("rollouts.name"), primary_key=True),
    sa.Column("device", sa.String(200), primary_key=True),
    sa.Column("phase", sa.String(40), nullable=False),
    sa.Column("record", sa.JSON, nullable=False),
)

audit = sa.Table(
    "audit",
    metadata,
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("rollout", sa.String(200), nullable=False, index=True),
    sa.Column("device", sa.String(200), nullable=False),
    sa.Column("t_s", sa.Float, nullable=False),
    sa.Column("action", sa.String(60), nullable=False),
    sa.Column("detail", sa.JSON, nullable=False),
)
