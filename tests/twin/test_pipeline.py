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


def test_a_two_stage_two_microbatch_step_runs_exactly_as_derived_by_hand(make_config: Any) -> None:
    # Toy model: 1 ms of compute per sample, split over 2 stages: forward f = 1/6 ms, backward
    # b = 1/3 ms per pass. 1F1B orders: stage 0 F0 F1 B0 B1, stage 1 F0 B0 F1 B1. Optimizer:
    # 5e8 local parameters x 32 B / 2 TB/s = 8 ms on each stage after its last backward.
    tl = simulate_step(make_config(pp=2, microbatches=2))
    f, b, opt = 1e-3 / 6, 1e-3 / 3, 8e-3
    got = [(s.name, s.start_s, s.end_s) for s in tl.spans if s.category in ("compute", "optimizer")]
    expected = [
        ("s0/F0.0", 0.0, f),
        ("s0/F0.1", f, 2 * f),
        ("s1/F0.0", f, 2 * f),
        ("s1/B0.0", 2 * f, 2 * f + b),
        ("s0/B0.0", 2 * f + b, 2 * f + 2 * b),
        ("s1/F0.1", 2 * f + b, 3 * f + b),
        ("s1/B0.1", 3 * f + b, 3 * f + 2 * b),
        ("s0/B0.1", 3 * f + 2 * b, 3 * f + 3 * b),
        ("s1/optimizer", 3 * f + 2 * b, 3 * f + 2 * b + opt),
        ("s0/optimizer", 3 * f + 3 * b, 3 * f + 3 * b + opt),
    ]
    assert [n for n, _, _ in got] == [n for n, _, _ in expected]
    for (_, s0, e0), (_, s1, e1) in zip(got, expected, strict=True):
        assert s0 == pytest.approx(s1) and e0 == pytest.approx(e1)
    assert tl.breakdown_s["pipeline_bubble"] == pytest.approx(f + b)
