"""Max-min fair solvers: hand-solved systems, properties, and agreement between solvers."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from fabrictwin.errors import SpecError
from fabrictwin.netsolver.maxmin import solve, solve_heap, solve_progressive, solve_reference

SOLVERS = (solve_progressive, solve_heap, solve_reference)
TOL = 1e-9


@pytest.mark.parametrize("solver", SOLVERS)
def test_two_links_three_flows_match_the_textbook_allocation(solver):
    # Bertsekas & Gallager 6.5.2 shape: link A (cap 1) carries f0, f1; link B (cap 2) carries f1, f2.
    # Filling: all rise to 0.5 when A saturates (0.5 + 0.5 = 1) -> f0, f1 frozen at 0.5.
    # f2 alone on B then rises to 2 - 0.5 = 1.5.
    a = sp.csr_matrix(np.array([[1, 0], [1, 1], [0, 1]], dtype=float))
    assert solver(a, [1.0, 2.0]) == pytest.approx([0.5, 0.5, 1.5], abs=TOL)


@pytest.mark.parametrize("solver", SOLVERS)
def test_fluid_multipath_flow_counts_half_its_rate_on_each_path(solver):
    # f0 splits evenly over links 0 and 1 (adaptive routing); f1 uses link 0 only; caps 1 and 1.
    # Link 0: 0.5 r0 + r1 <= 1; link 1: 0.5 r0 <= 1. Equal filling: 1.5 r = 1 -> r = 2/3,
    # link 0 saturates and freezes both, link 1 carries 1/3 (not saturated).
    a = sp.csr_matrix(np.array([[0.5, 0.5], [1.0, 0.0]]))
    assert solver(a, [1.0, 1.0]) == pytest.approx([2 / 3, 2 / 3], abs=TOL)


@pytest.mark.parametrize("solver", SOLVERS)
def test_a_rate_cap_bottlenecks_its_flow_and_frees_the_link_for_others(solver):
    # Both on one link of capacity 10; f0 capped at 2 (e.g. a TCP stream limit) -> f1 gets 8.
    a = sp.csr_matrix(np.ones((2, 1)))
    assert solver(a, [10.0], cap_S=[2.0, np.inf]) == pytest.approx([2.0, 8.0], abs=TOL)


def test_a_subflow_on_no_link_gets_infinite_rate():
    a = sp.csr_matrix((2, 1))
    a = sp.csr_matrix(np.array([[1.0], [0.0]]))
    assert solve_heap(a, [3.0]).tolist() == [3.0, np.inf]


def test_shape_mismatch_and_dead_used_link_are_spec_errors():
    a = sp.csr_matrix(np.ones((1, 2)))
    with pytest.raises(SpecError, match="capacity_L"):
        solve(a, [1.0])
    with pytest.raises(SpecError, match="capacity <= 0"):
        solve(a, [1.0, 0.0])
    with pytest.raises(SpecError, match="unknown max-min method"):
        solve(a, [1.0, 1.0], method="magic")  # type: ignore[arg-type]


def test_an_unused_failed_link_is_accepted():
    a = sp.csr_matrix(np.array([[1.0, 0.0]]))
    assert solve(a, [2.0, 0.0]).tolist() == [2.0]


@st.composite
def systems(draw: st.DrawFn) -> tuple[sp.csr_matrix, np.ndarray]:
    n_s = draw(st.integers(1, 25))
    n_l = draw(st.integers(1, 12))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    dense = np.where(rng.random((n_s, n_l)) < 0.35, rng.choice([1.0, 0.5, 0.25], (n_s, n_l)), 0.0)
    dense[np.arange(n_s), rng.integers(0, n_l, n_s)] = 1.0  # every subflow crosses a link
    cap = rng.choice([1.0, 2.0, 3.0, 10.0], n_l) * rng.uniform(0.5, 1.5, n_l)
    return sp.csr_matrix(dense), cap


@settings(max_examples=120, deadline=None)
@given(systems())
def test_no_link_exceeds_capacity_and_every_subflow_has_a_bottleneck(system):
    a, cap = system
    rate = solve_heap(a, cap)
    load = a.T @ rate
    assert np.all(load <= cap * (1 + 1e-7))
    dense = a.toarray()
    for s in range(a.shape[0]):
        links = np.flatnonzero(dense[s])
        saturated = load[links] >= cap[links] * (1 - 1e-7)
        # bottleneck: a saturated link where no crossing subflow has a larger rate
        ok = [
            np.all(rate[dense[:, link] > 0] <= rate[s] * (1 + 1e-7))
            for link, sat in zip(links, saturated, strict=True)
            if sat
        ]
        assert any(ok), f"subflow {s} has no bottleneck"


@settings(max_examples=120, deadline=None)
@given(systems())
def test_progressive_heap_and_reference_solvers_agree(system):
    a, cap = system
    heap = solve_heap(a, cap)
    assert solve_progressive(a, cap) == pytest.approx(heap, rel=1e-7)
    assert solve_reference(a, cap) == pytest.approx(heap, rel=1e-7)
    assert solve(a, cap) == pytest.approx(heap, rel=1e-7)
