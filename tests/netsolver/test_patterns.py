"""ECMP collisions versus adaptive and static routing on a cross-leaf ring step.

Figures from shared/reference/fabric-and-network-models.md section 4.2 (2,048 hosts, 2-tier
non-blocking fat tree, k = 64, shift by k/2 so every flow crosses the spine): D-mod-K 1.0x;
ECMP 1 QP 5.0x, 2 QPs 4.0x, 4 QPs 3.25x (one random draw each). Hash draws differ from the
reference's, so each ECMP figure is checked within +-1.0x and the trend must hold.
"""

from __future__ import annotations

import pytest

from fabrictwin.netsolver.patterns import ring_step, shift_step
from fabrictwin.topology import build_fat_tree

SLOWDOWN_TOL = 1.0
"""Absolute tolerance on a slowdown (x): different hash draws move the worst collision by one
flow per link at most in these sizes (checked over seeds 0-4)."""


@pytest.fixture(scope="module")
def tree2048():
    return build_fat_tree(2048, 1, 64, 400e9, rail_optimized=False)


@pytest.mark.parametrize("policy", ["dmodk", "adaptive"])
def test_static_dmodk_and_adaptive_routing_run_the_shift_step_at_line_rate(tree2048, policy):
    assert shift_step(tree2048, 32, 1e6, policy).slowdown == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize(("qps", "figure"), [(1, 5.0), (2, 4.0), (4, 3.25)])
def test_ecmp_collisions_slow_the_cross_leaf_step_as_in_the_reference(tree2048, qps, figure):
    result = shift_step(tree2048, 32, 1e6, "ecmp", qps=qps, seed=1)
    assert result.slowdown == pytest.approx(figure, abs=SLOWDOWN_TOL)


def test_more_queue_pairs_recover_the_ecmp_loss(tree2048):
    slow = [shift_step(tree2048, 32, 1e6, "ecmp", qps=q, seed=2).slowdown for q in (1, 2, 4)]
    assert slow[0] > slow[1] > slow[2] > 1.5


def test_a_rail_optimized_ring_step_collides_under_ecmp_but_not_under_adaptive_routing():
    topo = build_fat_tree(256, 8, 32, 400e9)  # 16 SUs of 16 nodes: ring hops cross leaves
    assert ring_step(topo, 1e6, "adaptive").slowdown == pytest.approx(1.0)
    assert ring_step(topo, 1e6, "ecmp", seed=3).slowdown >= 1.5
