"""Property tests: on any small fat tree, every policy routes every flow along a valid path."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fabrictwin.errors import Infeasible
from fabrictwin.topology.build import build_fat_tree
from fabrictwin.topology.routing import route


@st.composite
def fabrics(draw: st.DrawFn) -> tuple[int, int, int, int, float, bool, int | None]:
    radix = draw(st.sampled_from([4, 6, 8, 12]))
    rails = draw(st.integers(1, 3))
    nodes = draw(st.integers(1, 40))
    tiers = draw(st.sampled_from([2, 3]))
    sigma = draw(st.sampled_from([1.0, 2.0, 3.0]))
    su = draw(st.one_of(st.none(), st.integers(1, radix // 2)))
    return radix, rails, nodes, tiers, sigma, draw(st.booleans()), su


@settings(max_examples=60, deadline=None)
@given(fabrics(), st.sampled_from(["dmodk", "ecmp", "adaptive"]), st.integers(0, 2**31))
def test_any_fat_tree_routes_every_flow_on_a_conserving_path(
    params: tuple[int, int, int, int, float, bool, int | None], policy: str, seed: int
) -> None:
    radix, rails, nodes, tiers, sigma, rail_opt, su = params
    try:
        topo = build_fat_tree(nodes, rails, radix, 100e9, tiers=tiers, oversubscription=sigma,
                              rail_optimized=rail_opt, su_nodes=su)  # fmt: skip
    except Infeasible:
        return  # radix too small or SU larger than a leaf: covered by the sizing tests
    rng = np.random.default_rng(seed)
    src = rng.integers(0, topo.n_endpoints, 50)
    dst = rng.integers(0, topo.n_endpoints, 50)
    r = route(topo, src, dst, policy, qps=2, seed=seed)
    m = r.matrix.tocoo()
    net = np.zeros((r.matrix.shape[0], topo.n_endpoints + topo.n_switches))
    np.add.at(net, (m.row, topo.link_src[m.col]), -m.data)
    np.add.at(net, (m.row, topo.link_dst[m.col]), m.data)
    s, d = src[r.flow], dst[r.flow]
    moving = np.flatnonzero(s != d)
    net[moving, s[moving]] += 1.0
    net[moving, d[moving]] -= 1.0
    assert np.abs(net).max(initial=0.0) < 1e-9
    assert (r.matrix.data > 0).all() and (r.matrix.data <= 1.0 + 1e-12).all()
    np.testing.assert_allclose(np.bincount(r.flow, weights=r.fraction, minlength=src.size), 1.0)
