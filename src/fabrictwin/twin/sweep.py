"""Design-space sweeps: expand a :class:`~fabrictwin.spec.sweep.SweepSpec`, simulate every point
through an executor, and report the table, the Pareto front and the best design per objective.

* Expansion: ``product`` takes every combination in axis order (the last axis varies fastest,
  as ``itertools.product``); ``zip`` takes the i-th values together. Each point is the base
  scenario with the values set (short names as ``compare --vary``), validated; a value that does
  not validate is a :class:`SpecError` naming the point, before anything runs.
* A point that cannot run (``Infeasible``: does not fit in memory, batch not divisible;
  ``NotFound``: unknown catalog id) is kept in the table with its reason; the others go on.
* Pareto front over (time to train, cost), both minimised: a design is on it when no other design
  is at least as good on both and better on one. Designs equal on both are all kept.
* Results are identical whatever the executor: the simulation is deterministic, and executors
  return results in the points' order.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from fabrictwin.errors import FabricTwinError, SpecError
from fabrictwin.spec.scenario import ScenarioSpec
from fabrictwin.spec.sweep import AxisValue, Objective, SweepSpec, base_scenario, load_sweep
from fabrictwin.twin.compare import SHORTCUTS
from fabrictwin.twin.executors import Executor, LocalExecutor, Progress
from fabrictwin.twin.simulate import simulate


@dataclass(frozen=True)
class Point:
    """One design of the space: its axis values and its scenario."""

    index: int
    values: dict[str, AxisValue]
    scenario: ScenarioSpec


@dataclass(frozen=True)
class PointResult:
    """What one design gives (small and picklable: it comes back from workers).

    ``error`` is ``None`` for a design that ran; otherwise the figures are ``None`` and ``error``
    is ``"Infeasible: <reason>"`` (or ``NotFound``/``SpecError``).
    """

    index: int
    values: dict[str, AxisValue]
    time_to_train_s: float | None = None
    cost_usd: float | None = None
    energy_kwh: float | None = None
    step_time_s: float | None = None
    mfu: float | None = None
    gpus: int | None = None
    bottleneck: str | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def objective(self, name: Objective) -> float:
        """The value of one objective (s, USD or kWh).

        Raises:
            ValueError: the design did not run.
        """
        value = {"time_to_train": self.time_to_train_s, "cost": self.cost_usd, "energy": self.energy_kwh}[
            name
        ]
        if value is None:
            raise ValueError(f"design {self.index} did not run: {self.error}")
        return value


@dataclass(frozen=True)
class SweepResult:
    """The table of a sweep, its Pareto front over (time, cost) and the best design per objective."""

    spec: SweepSpec
    rows: list[PointResult]
    pareto: list[int] = field(default_factory=list)
    """Indices of the Pareto-optimal designs, by ascending time to train."""
    best: dict[str, int] = field(default_factory=dict)
    """Objective -> index of the design that minimises it (the first one on ties)."""

    def to_json(self) -> dict[str, Any]:
        """The object ``sweep --json`` prints."""
        return {
            "sweep": self.spec.name,
            "axes": list(self.spec.axes),
            "combine": self.spec.combine,
            "points": [asdict(r) | {"pareto": r.index in self.pareto} for r in self.rows],
            "pareto": list(self.pareto),
            "best": dict(self.best),
        }


def _set(data: dict[str, Any], key: str, value: AxisValue) -> None:
    node = data
    parts = SHORTCUTS.get(key, key).split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise SpecError(f"{part!r} is not a section of the scenario", path=f"axes.{key}")
    node[parts[-1]] = value


def _combinations(spec: SweepSpec) -> Iterator[tuple[AxisValue, ...]]:
    columns = list(spec.axes.values())
    if spec.combine == "zip":
        return zip(*columns, strict=True)
    return itertools.product(*columns)


def expand(spec: SweepSpec, base: ScenarioSpec) -> list[Point]:
    """Every design of the space, validated, in order.

    Raises:
        SpecError: a point's scenario does not validate (names the point's values).
    """
    keys = list(spec.axes)
    points = []
    for i, combo in enumerate(_combinations(spec)):
        values = dict(zip(keys, combo, strict=True))
        data = base.model_dump()
        for key, value in values.items():
            _set(data, key, value)
        data["name"] = f"{base.name} " + " ".join(f"{k}={v}" for k, v in values.items())
        try:
            points.append(Point(i, values, ScenarioSpec.model_validate(data)))
        except ValueError as exc:
            raise SpecError(f"point {i} {values}: {exc}", path="axes") from None
    return points


def run_point(point: Point) -> PointResult:
    """Simulate one design; a deliberate error becomes the row's ``error`` (a worker's unit)."""
    try:
        r = simulate(point.scenario)
    except FabricTwinError as exc:
        return PointResult(point.index, point.values, error=f"{type(exc).__name__}: {exc}")
    return PointResult(
        point.index,
        point.values,
        time_to_train_s=r.time_to_train_s,
        cost_usd=r.cost_usd,
        energy_kwh=r.energy_kwh,
        step_time_s=r.step_time_s,
        mfu=r.mfu,
        gpus=r.layout.gpus,
        bottleneck=r.bottleneck,
    )


def pareto_front(rows: Sequence[PointResult]) -> list[int]:
    """Indices of the designs no other design dominates on (time to train, cost), by time.

    Sweep by ascending time (then cost): a design is on the front when its cost is below every
    cost seen so far, or equal to the last front design's on both objectives.
    """
    ok = sorted(
        (r for r in rows if r.ok), key=lambda r: (r.objective("time_to_train"), r.objective("cost"), r.index)
    )
    front: list[PointResult] = []
    for r in ok:
        point = (r.objective("time_to_train"), r.objective("cost"))
        last = (front[-1].objective("time_to_train"), front[-1].objective("cost")) if front else None
        if last is None or point[1] < last[1] or point == last:
            front.append(r)
    return [r.index for r in front]


def best_per_objective(rows: Sequence[PointResult], objectives: Sequence[Objective]) -> dict[str, int]:
    """Objective -> index of the design minimising it (lowest index on ties); none if all failed."""
    ok = [r for r in rows if r.ok]
    if not ok:
        return {}
    return {name: min(ok, key=lambda r: (r.objective(name), r.index)).index for name in objectives}


def run_sweep(
    spec: SweepSpec,
    base: ScenarioSpec,
    executor: Executor | None = None,
    progress: Progress | None = None,
) -> SweepResult:
    """Simulate every design of ``spec`` (on ``executor``; in this process when ``None``).

    Raises:
        SpecError: a point does not validate (see :func:`expand`).
    """
    points = expand(spec, base)
    runner = executor or LocalExecutor()
    rows = list(runner.map(run_point, points, progress))
    return SweepResult(spec, rows, pareto_front(rows), best_per_objective(rows, spec.objectives))


def load_space(path: str | Path, *, text: str | None = None) -> tuple[SweepSpec, ScenarioSpec]:
    """Read a sweep file and its base scenario (axis names checked against ``compare``'s short
    names and the scenario's fields).

    Raises:
        SpecError: the sweep or its base scenario is invalid, located by file, line and YAML path.
    """
    spec = load_sweep(path, text=text, shortcuts=SHORTCUTS)
    return spec, base_scenario(spec, path)


def sweep_file(
    path: str | Path, executor: Executor | None = None, progress: Progress | None = None
) -> SweepResult:
    """:func:`load_space` then :func:`run_sweep`: what ``fabrictwin sweep`` calls.

    Raises:
        SpecError: as :func:`load_space` and :func:`expand`.
    """
    spec, base = load_space(path)
    return run_sweep(spec, base, executor, progress)


ROW_KEYS: tuple[str, ...] = (
    "time_to_train_s",
    "cost_usd",
    "energy_kwh",
    "step_time_s",
    "mfu",
    "gpus",
    "bottleneck",
    "error",
)


def csv_rows(result: SweepResult) -> Iterator[Mapping[str, Any]]:
    """One flat mapping per design (axis values, figures, ``pareto``), in the points' order."""
    for r in result.rows:
        row: dict[str, Any] = dict(r.values)
        row.update({k: getattr(r, k) for k in ROW_KEYS})
        row["pareto"] = r.index in result.pareto
        yield row
