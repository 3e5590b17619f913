"""Compare designs: one scenario, some fields varied, every combination simulated."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fabrictwin.errors import SpecError
from fabrictwin.spec.scenario import ScenarioSpec
from fabrictwin.twin.simulate import SimulationResult, simulate

# Short names for the fields people vary most; any dotted path into the scenario works too.
SHORTCUTS = {
    "fabric": "cluster.fabric",
    "dpu": "cluster.dpu",
    "sharp": "cluster.sharp",
    "nodes": "cluster.nodes",
    "system": "cluster.system",
    "nics": "cluster.nics_per_node",
    "model": "job.model",
    "tp": "parallelism.tp",
    "pp": "parallelism.pp",
    "cp": "parallelism.cp",
    "zero": "parallelism.zero_stage",
    "encryption": "host.encryption",
    "vswitch": "host.vswitch",
    "firewall": "host.firewall",
    "cache": "data.cache_hit_rate",
}


@dataclass(frozen=True)
class Variant:
    """One design of a comparison and its result."""

    varied: dict[str, str]
    result: SimulationResult


def parse_vary(items: Sequence[str]) -> list[tuple[str, list[str]]]:
    """``["fabric=a,b", "dpu=none,bluefield-3"]`` -> [(path, values)].

    Raises:
        SpecError: an item without ``=`` or without values.
    """
    out = []
    for item in items:
        key, sep, values = item.partition("=")
        vals = [v.strip() for v in values.split(",") if v.strip()]
        if not sep or not key.strip() or not vals:
            raise SpecError(f"--vary {item!r}: expected KEY=VALUE[,VALUE...]")
        out.append((key.strip(), vals))
    return out


def _apply(base: dict[str, Any], key: str, value: str) -> None:
    path = SHORTCUTS.get(key, key).split(".")
    node = base
    for part in path[:-1]:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise SpecError(f"--vary {key}: {part!r} is not a section", path=key)
    node[path[-1]] = value


def variants(
    scenario: ScenarioSpec, vary: Sequence[tuple[str, list[str]]]
) -> list[tuple[dict[str, str], ScenarioSpec]]:
    """Every combination of the varied values, as validated scenarios.

    Raises:
        SpecError: a value that does not validate, naming the varied key.
    """
    keys = [k for k, _ in vary]
    out = []
    for combo in itertools.product(*[vals for _, vals in vary]):
        data = scenario.model_dump()
        for key, value in zip(keys, combo, strict=True):
            _apply(data, key, value)
        label = dict(zip(keys, combo, strict=True))
        data["name"] = f"{scenario.name} " + " ".join(f"{k}={v}" for k, v in label.items())
        try:
            out.append((label, ScenarioSpec.model_validate(data)))
        except ValueError as exc:
            raise SpecError(f"--vary {label}: {exc}") from None
    return out


def compare(
    scenario: ScenarioSpec,
    vary: Sequence[tuple[str, list[str]]],
    progress: Callable[[int, int], None] | None = None,
) -> list[Variant]:
    """Simulate every variant (in order; ``progress(done, total)`` after each)."""
    todo = variants(scenario, vary)
    out = []
    for i, (label, sc) in enumerate(todo):
        out.append(Variant(label, simulate(sc)))
        if progress:
            progress(i + 1, len(todo))
    return out


def comparison_json(rows: Sequence[Variant]) -> list[dict[str, Any]]:
    """The list `compare --json` prints: each result, its varied values, ratios to the first."""
    if not rows:
        return []
    base = rows[0].result
    out = []
    for row in rows:
        obj = row.result.to_json()
        obj["varied"] = dict(row.varied)
        obj["step_ratio_vs_first"] = row.result.step_time_s / base.step_time_s
        obj["time_to_train_ratio_vs_first"] = row.result.time_to_train_s / base.time_to_train_s
        obj["bottleneck_moved"] = row.result.bottleneck != base.bottleneck
        out.append(obj)
    return out
