"""Pipeline schedules: the bubble emerges from the simulated order and matches the closed form."""

from __future__ import annotations

from typing import Any

import pytest

from fabrictwin.errors import Infeasible
from fabrictwin.timeline.pipeline import bubble_fraction, stage_order
from fabrictwin.timeline.step import simulate_step


def test_1f1b_warms_up_with_one_forward_less_per_later_stage() -> None:
    assert [d for d, _, _ in stage_order(4, 1, 4, 0)[:4]] == ["F", "F", "F", "F"]
    assert [d for d, _, _ in stage_order(4, 1, 4, 3)[:2]] == ["F", "B"]
    for s in range(4):
        order = stage_order(4, 1, 8, s)
        assert sorted(mb for d, _, mb in order if d == "F") == list(range(8))
        assert sorted(mb for d, _, mb in order if d == "B") == list(range(8))


def test_interleaving_visits_every_chunk_of_every_microbatch_once() -> None:
    order = stage_order(2, 2, 4, 0)
    forwards = sorted((c, mb) for d, c, mb in order if d == "F")
    assert forwards == [(c, mb) for c in range(2) for mb in range(4)]


def test_interleaving_needs_microbatches_divisible_by_stages() -> None:
    with pytest.raises(Infeasible, match="divisible"):
        stage_order(4, 2, 6, 0)


@pytest.mark.parametrize(("p", "m"), [(4, 4), (4, 8), (8, 16)])
def test_simulated_1f1b_bubble_equals_the_closed_form(p: int, m: int, make_config: Any) -> None:
    # Uniform stages, free communication: step = (m + p - 1) * (t_f + t_b) per stage
    # (Narayanan et al. SC'21 eq. 1), so bubble / ideal = (p - 1) / m.
    tl = simulate_step(make_config(pp=p, microbatches=m))
    ideal = tl.breakdown_s["compute"]
    assert tl.breakdown_s["pipeline_bubble"] / ideal == pytest.approx(bubble_fraction(p, 1, m), rel=1e-9)


def test_interleaving_shrinks_the_bubble_by_about_the_chunk_count(make_config: Any) -> None:
    plain = simulate_step(make_config(pp=4, microbatches=8))
    inter = simulate_step(make_config(pp=4, microbatches=8, virtual_stages=2))
    ratio = inter.breakdown_s["pipeline_bubble"] / plain.breakdown_s["pipeline_bubble"]
    assert 0.4 < ratio < 0.65  # closed form 1/v = 0.5
