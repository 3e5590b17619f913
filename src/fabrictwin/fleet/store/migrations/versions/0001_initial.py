"""Initial fleet store: devices, rollouts, per-device rollout state, audit log.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "devices",
        sa.Column("name", sa.String(200), primary_key=True),
        sa.Column("bmc_url", sa.String(500), nullable=False),
        sa.Column("record", sa.JSON, nullable=False),
        sa.Column("seen_at", sa.Float, nullable=False),
    )
    op.create_table(
        "rollouts",
        sa.Column("name", sa.String(200), primary_key=True),
        sa.Column("spec", sa.JSON, nullable=False),
        sa.Column("plan", sa.JSON, nullable=False),
        sa.Column("status", sa.String(40), nullable=False),
        sa.Column("detail", sa.Text, nullable=False, server_default=""),
        sa.Column("started_at", sa.Float, nullable=False),
    )
    op.create_table(
        "device_states",
        sa.Column("rollout", sa.String(200), sa.ForeignKey("rollouts.name"), primary_key=True),
        sa.Column("device", sa.String(200), primary_key=True),
        sa.Column("phase", sa.String(40), nullable=False),
        sa.Column("record", sa.JSON, nullable=False),
    )
    op.create_table(
        "audit",
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("rollout", sa.String(200), nullable=False),
        sa.Column("device", sa.String(200), nullable=False),
        sa.Column("t_s", sa.Float, nullable=False),
        sa.Column("action", sa.String(60), nullable=False),
        sa.Column("detail", sa.JSON, nullable=False),
    )
    op.create_index("ix_audit_rollout", "audit", ["rollout"])


def downgrade() -> None:
    op.drop_index("ix_audit_rollout", "audit")
    op.drop_table("audit")
    op.drop_table("device_states")
    op.drop_table("rollouts")
    op.drop_table("devices")
