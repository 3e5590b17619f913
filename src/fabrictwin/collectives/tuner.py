"""What a given NCCL release *chooses*: its tuner's cost estimates, per release.

NCCL picks the (algorithm, protocol) with the smallest *estimated* time (``ncclTopoGetAlgoTime``,
nccl-cost-model.md B.1); the collective then takes whatever the chosen pair really costs.
Without a release (``CommContext.nccl_version is None``) we assume a current tuner that picks
what our calibrated model says is fastest. With a release older than 2.21 the ranking uses
that release's constants where they differ from today's (B.2, B.4): Ring/LL bus bandwidth x
1/4 instead of 1/2, Hopper's LL caps equal to Ampere's, and an NVLS estimate of 23 us with a 5/6
bus ratio and no nvlsEfficiency. That is why NCCL 2.18 ran NVLS on an 8 x H100 node from a few
hundred KiB on (A-038..A-043: ~42 us flat from 64 KiB to 2 MiB) where 2.27+ runs Ring/LL.
Where we replaced a constant of NCCL's table by a measured one (A100 NVSwitch rings: NVLink
per-hop costs, and on one node the LL128 rate, ``ring.measured_ampere``), every release still
ranks with its table, so the protocol switch points stay NCCL's.
"""

from __future__ import annotations

import re

from fabrictwin.collectives import ring
from fabrictwin.collectives.base import GB, US, AlgoCost, Op, bus_factor, nvlink_bus_Bps, ring_bus_Bps
from fabrictwin.collectives.context import CommContext
from fabrictwin.collectives.nccl_constants import (
    LEGACY_BEFORE,
    LEGACY_HOPPER_LL_MAX_BW_GBPS,
    LEGACY_NVLS_BUS_RATIO,
    LEGACY_NVLS_LAT_US,
    LEGACY_RING_LL_FRACTION,
    LL_MAX_BW_GBPS,
    Proto,
)
from fabrictwin.errors import SpecError

_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?(?:-\d+)?$")


def parse_version(text: str) -> tuple[int, int]:
    """(major, minor) of an NCCL release string such as ``2.18.5`` or ``2.30.7-1``.

    Raises:
        SpecError: the text is not a release number.
    """
    m = _VERSION.match(text.strip())
    if m is None:
        raise SpecError(f"nccl_version {text!r} is not a release such as '2.18.5'", path="nccl_version")
    return int(m.group(1)), int(m.group(2))


def is_legacy(ctx: CommContext) -> bool:
    """The communicator names an NCCL release whose tuner uses the pre-2.21 constants."""
    return ctx.nccl_version is not None and parse_version(ctx.nccl_version) < LEGACY_BEFORE


def _legacy_ll_cap_Bps(ctx: CommContext) -> float:
    col = 0 if ctx.nodes == 1 else (1 if ctx.nodes == 2 else 2)
    row = LEGACY_HOPPER_LL_MAX_BW_GBPS if ctx.arch == "hopper" else LL_MAX_BW_GBPS[ctx.arch]
    return row[col] * GB


def estimate(ctx: CommContext, op: Op, algorithm: str, proto: Proto, achieved: AlgoCost) -> AlgoCost | None:
    """The tuner's (latency, algbw) estimate for one candidate, or None when it equals the
    achieved cost (a current release, or a pair whose constants did not change)."""
    if algorithm == "ring" and proto != "ll" and ring.measured_ampere(ctx):
        # every release ranks A100 NVSwitch rings with its table, not our measured costs
        return ring.cost(ctx, op, proto, nccl=True)
    if not is_legacy(ctx):
        return None
    if algorithm == "ring" and proto == "ll" and op == "all_reduce":
        bus = min(_legacy_ll_cap_Bps(ctx), LEGACY_RING_LL_FRACTION * ring_bus_Bps(ctx))
        return AlgoCost(achieved.latency_s, bus / bus_factor(op, ctx.ranks))
    if algorithm == "tree" and proto == "ll":
        return AlgoCost(achieved.latency_s, min(achieved.algbw_Bps, _legacy_ll_cap_Bps(ctx) / 2.0))
    if algorithm == "nvls" and ctx.nodes == 1:
        return AlgoCost(LEGACY_NVLS_LAT_US * US, nvlink_bus_Bps(ctx) * LEGACY_NVLS_BUS_RATIO)
    return None
