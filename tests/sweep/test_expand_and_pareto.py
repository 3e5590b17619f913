"""Expanding a space into scenarios, and the Pareto front / best designs worked by hand."""

from __future__ import annotations

import pytest

from fabrictwin.errors import SpecError
from fabrictwin.spec.scenario import ScenarioSpec
from fabrictwin.spec.sweep import SweepSpec
from fabrictwin.twin.sweep import PointResult, best_per_objective, expand, pareto_front


def test_product_varies_the_last_axis_fastest_and_sets_every_field(base: ScenarioSpec) -> None:
    spec = SweepSpec(
        base="b.yaml", axes={"fabric": ["ib-ndr", "tcp-100g"], "nodes": [4, 8], "dpu": ["bluefield-3"]}
    )
    points = expand(spec, base)
    assert [p.values for p in points] == [
        {"fabric": "ib-ndr", "nodes": 4, "dpu": "bluefield-3"},
        {"fabric": "ib-ndr", "nodes": 8, "dpu": "bluefield-3"},
        {"fabric": "tcp-100g", "nodes": 4, "dpu": "bluefield-3"},
        {"fabric": "tcp-100g", "nodes": 8, "dpu": "bluefield-3"},
    ]
    assert [p.index for p in points] == [0, 1, 2, 3]
    last = points[3].scenario
    assert (last.cluster.fabric, last.cluster.nodes, last.cluster.dpu) == ("tcp-100g", 8, "bluefield-3")
    assert last.job == base.job  # what no axis names stays as in the base
    assert last.name == "bert fabric=tcp-100g nodes=8 dpu=bluefield-3"


def test_zip_pairs_the_ith_values_and_dotted_paths_reach_any_field(base: ScenarioSpec) -> None:
    spec = SweepSpec(
        base="b.yaml",
        combine="zip",
        axes={
            "fabric": ["ib-ndr", "tcp-100g"],
            "cost.usd_per_gpu_hour": [3.0, 2.0],
            "parallelism.tp": [2, 1],
        },
    )
    points = expand(spec, base)
    assert len(points) == 2
    assert (points[0].scenario.cluster.fabric, points[0].scenario.cost.usd_per_gpu_hour) == ("ib-ndr", 3.0)
    assert (points[1].scenario.cluster.fabric, points[1].scenario.parallelism.tp) == ("tcp-100g", 1)


def test_a_value_that_does_not_validate_names_the_point(base: ScenarioSpec) -> None:
    spec = SweepSpec(base="b.yaml", axes={"fabric": ["ib-ndr", "ib-ndrr"]})
    with pytest.raises(SpecError, match=r"point 1 \{'fabric': 'ib-ndrr'\}"):
        expand(spec, base)


def _row(i: int, hours: float | None, usd: float | None, kwh: float | None = None) -> PointResult:
    if hours is None:
        return PointResult(i, {"i": i}, error="Infeasible: does not fit")
    return PointResult(i, {"i": i}, time_to_train_s=hours * 3600, cost_usd=usd, energy_kwh=kwh or usd)


def test_the_pareto_front_of_a_small_set_worked_by_hand() -> None:
    # (hours, USD): 0 (10, 100) fastest; 1 (12, 80) cheaper; 2 (12, 90) dominated by 1;
    # 3 (15, 80) dominated by 1 (same cost, slower); 4 (20, 50) cheapest; 5 failed;
    # 6 (10, 120) dominated by 0 (same time, dearer); 7 (12, 80) ties 1 on both: kept.
    rows = [
        _row(0, 10, 100),
        _row(1, 12, 80),
        _row(2, 12, 90),
        _row(3, 15, 80),
        _row(4, 20, 50),
        _row(5, None, None),
        _row(6, 10, 120),
        _row(7, 12, 80),
    ]
    assert pareto_front(rows) == [0, 1, 7, 4]


def test_the_best_design_per_objective_takes_the_first_on_ties_and_skips_failures() -> None:
    rows = [_row(0, None, None), _row(1, 12, 80, kwh=30), _row(2, 10, 100, kwh=30), _row(3, 20, 80, kwh=40)]
    assert best_per_objective(rows, ["time_to_train", "cost", "energy"]) == {
        "time_to_train": 2,
        "cost": 1,
        "energy": 1,
    }
    assert best_per_objective([_row(0, None, None)], ["cost"]) == {}
    assert pareto_front([_row(0, None, None)]) == []


def test_a_failed_design_has_no_objective_value() -> None:
    with pytest.raises(ValueError, match="did not run: Infeasible: does not fit"):
        _row(3, None, None).objective("cost")
