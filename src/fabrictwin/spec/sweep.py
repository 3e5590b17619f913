"""Design-space sweep specs: a base scenario, the axes to vary and the objectives to report.

A sweep file reads::

    name: llama3-8b-64-nodes
    base: llama3-8b-h100.yaml        # a scenario file (relative to this one); or `scenario:` inline
    axes:
      fabric: [ib-ndr, roce-400g, tcp-100g]
      dpu: [none, bluefield-3]
      parallelism.tp: [1, 2]         # any scenario field by dotted path
    combine: product                 # or zip: the i-th values of every axis go together
    objectives: [time_to_train, cost, energy]

Axis names are the short names ``fabrictwin compare --vary`` accepts (``fabric``, ``nodes``,
``dpu``...) or a dotted path into :class:`~fabrictwin.spec.scenario.ScenarioSpec`. The short
names live with the twin (``fabrictwin.twin.compare.SHORTCUTS``, above this layer), so
:func:`load_sweep` takes them as an argument and checks every axis name against them and the
scenario's fields, with the file, line and YAML path of a bad one.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, model_validator

from fabrictwin.spec.base import Spec
from fabrictwin.spec.load import load_mapping
from fabrictwin.spec.scenario import ScenarioSpec, load_scenario

Objective = Literal["time_to_train", "cost", "energy"]
OBJECTIVES: tuple[Objective, ...] = ("time_to_train", "cost", "energy")
AxisValue = bool | int | float | str
"""One value of an axis, as YAML gives it (validated when the point's scenario is built)."""


class SweepSpec(Spec):
    """A design space: one base scenario and the fields that vary."""

    name: str = "sweep"
    """Free-form name shown in reports."""
    base: str | None = None
    """Path of the scenario YAML file every point starts from, relative to the sweep file."""
    scenario: ScenarioSpec | None = None
    """The base scenario written inline instead of ``base`` (give exactly one of the two)."""
    axes: dict[str, list[AxisValue]] = Field(min_length=1)
    """Field to vary -> its values, in order. Keys: a short name of ``compare --vary`` (``fabric``,
    ``nodes``, ``dpu``, ``sharp``, ``nics``, ``tp``...) or a dotted scenario path
    (``cluster.nics_per_node``, ``cost.usd_per_gpu_hour``)."""
    combine: Literal["product", "zip"] = "product"
    """``product``: every combination of the axes' values; ``zip``: the i-th values of all axes
    form point i (axes of equal length), e.g. to pair each fabric with its own price."""
    objectives: list[Objective] = Field(default=list(OBJECTIVES), min_length=1)
    """Objectives to report the best design for: ``time_to_train`` (s), ``cost`` (USD of GPU-hours,
    ``cost.usd_per_gpu_hour`` of the scenario), ``energy`` (kWh at the wall, PUE included)."""

    @model_validator(mode="after")
    def _axes_are_usable(self) -> SweepSpec:
        if (self.base is None) == (self.scenario is None):
            raise ValueError("give exactly one of base (a scenario file) and scenario (inline)")
        for key, values in self.axes.items():
            if not values:
                raise ValueError(f"axis {key!r} has no values")
            if len(set(map(repr, values))) != len(values):
                raise ValueError(f"axis {key!r} repeats a value: {values}")
        lengths = {len(v) for v in self.axes.values()}
        if self.combine == "zip" and len(lengths) > 1:
            sizes = ", ".join(f"{k}: {len(v)}" for k, v in self.axes.items())
            raise ValueError(f"combine: zip needs axes of equal length, got {sizes}")
        return self

    @property
    def points(self) -> int:
        """Number of designs the sweep simulates."""
        if self.combine == "zip":
            return len(next(iter(self.axes.values())))
        total = 1
        for values in self.axes.values():
            total *= len(values)
        return total


def scenario_path_exists(parts: list[str]) -> bool:
    """Whether ``parts`` (a dotted path split) names a field of :class:`ScenarioSpec`."""
    model: type[BaseModel] = ScenarioSpec
    for i, part in enumerate(parts):
        field = model.model_fields.get(part)
        if field is None:
            return False
        annotation = field.annotation
        last = i == len(parts) - 1
        if not last and not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return False
        if not last:
            assert isinstance(annotation, type)
            model = annotation
    return True


def _axis_problem(key: str, shortcuts: Mapping[str, str]) -> str | None:
    path = shortcuts.get(key, key)
    if scenario_path_exists(path.split(".")):
        return None
    known = sorted(shortcuts)
    close = difflib.get_close_matches(key, known, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return (
        f"{key!r} is neither a short name ({', '.join(known)}) nor a dotted path into the "
        f"scenario (e.g. cluster.nics_per_node); {hint}".rstrip("; ")
    )


def load_sweep(
    source: str | Path, *, text: str | None = None, shortcuts: Mapping[str, str] | None = None
) -> SweepSpec:
    """Read a sweep YAML file (or ``text``) and check its axis names.

    ``shortcuts`` maps short axis names to dotted scenario paths (the twin passes
    ``fabrictwin.twin.compare.SHORTCUTS``).

    Raises:
        SpecError: unreadable file, bad YAML, unknown key, bad value, or an axis that names no
            scenario field, located by file, line and YAML path.
    """
    doc = load_mapping(source, text=text)
    spec = doc.validate(SweepSpec)
    for key in spec.axes:
        problem = _axis_problem(key, shortcuts or {})
        if problem:
            raise doc.error(("axes", key), problem)
    return spec


def base_scenario(spec: SweepSpec, sweep_file: str | Path | None) -> ScenarioSpec:
    """The sweep's base scenario: the inline one, or the file ``base`` names, read relative to the
    folder of ``sweep_file`` (the working folder when ``None``).

    Raises:
        SpecError: the base file cannot be read or is not a valid scenario (located in that file).
    """
    if spec.scenario is not None:
        return spec.scenario
    assert spec.base is not None  # the spec's validator demands one of the two
    path = Path(spec.base)
    if not path.is_absolute() and sweep_file is not None:
        path = Path(sweep_file).parent / path
    return load_scenario(path)
