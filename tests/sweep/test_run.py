"""Running sweeps: per-point errors, and identical results in order on every executor."""

from __future__ import annotations

import time
from typing import Any

import pytest

from fabrictwin.spec.scenario import ScenarioSpec
from fabrictwin.spec.sweep import SweepSpec
from fabrictwin.twin.executors import (
    DaskExecutor,
    LocalExecutor,
    MissingExtra,
    RayExecutor,
    batches,
    make_executor,
)
from fabrictwin.twin.simulate import simulate
from fabrictwin.twin.sweep import run_sweep

SPACE = SweepSpec(base="b.yaml", axes={"fabric": ["ib-ndr", "tcp-100g"], "nodes": [3, 4, 8]})


def test_an_infeasible_point_is_reported_with_its_reason_and_the_others_run(base: ScenarioSpec) -> None:
    # 3 nodes = 24 GPUs: the global batch of 256 does not divide by dp = 24.
    result = run_sweep(SPACE, base)
    assert len(result.rows) == 6
    failed = [r for r in result.rows if not r.ok]
    assert [r.values["nodes"] for r in failed] == [3, 3]
    assert failed[0].error == (
        "Infeasible: global batch 256 is not divisible by data-parallel degree 24; "
        "nearest feasible: global batch 264"
    )
    assert all(r.time_to_train_s is None for r in failed)
    assert all(r.ok for r in result.rows if r.values["nodes"] != 3)
    assert set(result.pareto) <= {r.index for r in result.rows if r.ok}


def test_a_point_gives_the_same_figures_as_simulating_its_scenario(base: ScenarioSpec) -> None:
    result = run_sweep(SweepSpec(base="b.yaml", axes={"fabric": ["tcp-100g"]}), base)
    direct = simulate(
        base.model_copy(update={"cluster": base.cluster.model_copy(update={"fabric": "tcp-100g"})})
    )
    row = result.rows[0]
    assert row.time_to_train_s == direct.time_to_train_s
    assert (row.cost_usd, row.energy_kwh, row.gpus) == (direct.cost_usd, direct.energy_kwh, 64)
    assert result.best == {"time_to_train": 0, "cost": 0, "energy": 0}


def test_a_process_pool_and_a_dask_cluster_give_the_local_results_in_order(base: ScenarioSpec) -> None:
    local = run_sweep(SPACE, base)
    pool = LocalExecutor(processes=2, batch_size=2)
    dask = DaskExecutor(workers=1, threads=2, batch_size=1)
    try:
        seen: list[tuple[int, int]] = []
        assert run_sweep(SPACE, base, dask, lambda d, t: seen.append((d, t))) == local
        assert run_sweep(SPACE, base, pool) == local
    finally:
        dask.close()
        pool.close()
    assert seen[-1] == (6, 6) and len(seen) == 6


def _sleep_then_echo(x: int) -> int:
    time.sleep(0.02 * (4 - x))  # later items finish first
    return x


def test_dask_yields_results_in_item_order_when_later_items_finish_first() -> None:
    dask = DaskExecutor(workers=1, threads=2, batch_size=1)
    try:
        assert list(dask.map(_sleep_then_echo, [0, 1, 2, 3])) == [0, 1, 2, 3]
    finally:
        dask.close()


def test_batches_cover_every_item_once_in_order() -> None:
    assert batches(10, 1, 4) == [range(0, 4), range(4, 8), range(8, 10)]
    assert sum(len(b) for b in batches(1000, 2)) == 1000
    assert len(batches(1000, 2)) == 16  # 8 per worker
    assert batches(0, 2) == []
    with pytest.raises(ValueError, match="must be >= 1"):
        batches(5, 0)


def test_the_ray_executor_names_the_extra_to_install_when_ray_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)  # makes `import ray` fail as if not installed
    with pytest.raises(MissingExtra, match=r"pip install 'fabrictwin\[ray\]'"):
        RayExecutor("auto")
    with pytest.raises(MissingExtra):
        make_executor("ray", address="auto")


def test_an_unknown_executor_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown executor 'spark'"):
        make_executor("spark")


class _FakeRay:
    """The few calls of the Ray API the executor uses; ``wait`` returns the *last* pending ref
    first, so results arrive in reverse order and the executor must put them back in order."""

    def __init__(self) -> None:
        self.initialised = False
        self.init_args: dict[str, object] = {}

    def is_initialized(self) -> bool:
        return self.initialised

    def init(self, **kwargs: object) -> None:
        self.initialised, self.init_args = True, kwargs

    def shutdown(self) -> None:
        self.initialised = False

    def cluster_resources(self) -> dict[str, float]:
        return {"CPU": 2.0}

    def remote(self, fn):  # type: ignore[no-untyped-def]
        class Ref:  # hashable by identity, as Ray's ObjectRef
            def __init__(self, value: object) -> None:
                self.value = value

        class Handle:
            @staticmethod
            def remote(*args: object) -> Ref:
                return Ref(fn(*args))

        return Handle()

    def wait(self, pending: list[object], num_returns: int) -> tuple[list[object], list[object]]:
        return pending[-1:], pending[:-1]

    def get(self, ref: Any) -> object:
        return ref.value


def test_the_ray_adapter_returns_results_in_order_and_shuts_down_the_ray_it_started(
    monkeypatch: pytest.MonkeyPatch, base: ScenarioSpec
) -> None:
    import sys

    fake = _FakeRay()
    monkeypatch.setitem(sys.modules, "ray", fake)
    executor = RayExecutor("auto", batch_size=1)
    assert fake.init_args["address"] == "auto" and executor.workers == 2
    seen: list[int] = []
    assert list(executor.map(abs, [-1, -2, -3, -4], lambda d, t: seen.append(d))) == [1, 2, 3, 4]
    assert seen == [1, 2, 3, 4]
    assert run_sweep(SPACE, base, executor) == run_sweep(SPACE, base)
    executor.close()
    assert not fake.initialised


def test_zip_pairs_each_fabric_with_its_price_and_cost_follows_gpu_hours(base: ScenarioSpec) -> None:
    spec = SweepSpec(
        base="b.yaml",
        combine="zip",
        axes={"fabric": ["ib-ndr", "tcp-100g"], "cost.usd_per_gpu_hour": [3.0, 2.0]},
    )
    ib, tcp = run_sweep(spec, base).rows
    # cost = hours x GPUs x price (docs/twin.md): the ratio is the time ratio times the price ratio
    assert tcp.objective("cost") / ib.objective("cost") == pytest.approx(
        tcp.objective("time_to_train") / ib.objective("time_to_train") * 2.0 / 3.0, rel=1e-12
    )
    assert ib.objective("cost") == pytest.approx(ib.objective("time_to_train") / 3600 * 64 * 3.0, rel=1e-12)


def test_a_dask_executor_given_an_address_uses_that_cluster_and_leaves_it_running() -> None:
    import distributed

    cluster = distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address="127.0.0.1:0"
    )
    try:
        executor = DaskExecutor(cluster.scheduler_address, batch_size=2)
        assert executor.workers == 1
        assert list(executor.map(abs, [-3, -2, -1])) == [3, 2, 1]
        executor.close()
        assert cluster.status.name == "running"
    finally:
        cluster.close()


def test_the_local_executor_reports_progress_after_each_item_and_pools_on_request() -> None:
    seen: list[tuple[int, int]] = []
    assert list(LocalExecutor().map(abs, [-1, -2], lambda d, t: seen.append((d, t)))) == [1, 2]
    assert seen == [(1, 2), (2, 2)]
    pooled = make_executor("local", workers=2)
    assert isinstance(pooled, LocalExecutor) and pooled.processes == 2
    pooled.close()
