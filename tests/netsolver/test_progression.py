"""Event-driven progression: flows finish and re-share."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from fabrictwin.errors import SpecError
from fabrictwin.netsolver.progression import progress


@pytest.mark.parametrize("method", ["auto", "heap", "progressive", "reference"])
def test_the_short_flow_finishes_first_and_the_long_one_speeds_up(method):
    # Two flows of 1 and 2 bytes share one 1 B/s link: 0.5 B/s each until t = 2 (the short one
    # has moved 1 B); the long one has 1 B left at 1 B/s -> ends at t = 3.
    a = sp.csr_matrix(np.ones((2, 1)))
    res = progress(a, [1.0], [1.0, 2.0], method=method)
    assert res.finish_F.tolist() == pytest.approx([2.0, 3.0])
    assert res.events == 2
    assert res.makespan_s == pytest.approx(3.0)


def test_a_late_start_waits_for_its_latency_and_then_shares():
    # f0 (2 B) starts at 0 alone at 1 B/s; f1 (1 B) starts at 1: both at 0.5 B/s; f0 has 1 B
    # left and f1 1 B -> both end at t = 3.
    a = sp.csr_matrix(np.ones((2, 1)))
    res = progress(a, [1.0], [2.0, 1.0], start_S=[0.0, 1.0])
    assert res.finish_S.tolist() == pytest.approx([3.0, 3.0])


def test_subflows_of_one_flow_end_when_the_last_one_ends():
    # Flow 0 = two subflows on separate links of 1 and 3 B/s, 1 B each -> ends at t = 1.
    a = sp.csr_matrix(np.eye(2))
    res = progress(a, [1.0, 3.0], [1.0, 1.0], flow_S=[0, 0])
    assert res.finish_F.tolist() == pytest.approx([1.0])


def test_zero_sized_transfers_end_at_their_start_and_bad_sizes_are_errors():
    a = sp.csr_matrix(np.ones((1, 1)))
    assert progress(a, [1.0], [0.0]).makespan_s == 0.0
    with pytest.raises(SpecError):
        progress(a, [1.0], [-1.0])
    with pytest.raises(SpecError):
        progress(a, [1.0], [1.0, 1.0])
    with pytest.raises(SpecError, match="crosses no link"):
        progress(sp.csr_matrix((1, 1)), [1.0], [1.0])
