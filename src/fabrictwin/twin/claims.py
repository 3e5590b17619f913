"""The seeds' claims, checked against the twin.

The seeds (an "Analysis of Mellanox's Network Architecture" article and a DPU solution brief)
claim: InfiniBand trains ResNet-50 on 256 GPUs 35% faster and BERT-Large on 1024 GPUs 43% faster
than "standard Ethernet" (6.5 h -> 4.2 h, 85 h -> 48 h); inefficient networks leave "over 50%"
of GPU compute idle; DPUs speed training by offloading the host. Each check runs designs of the
same job and reports what the twin predicts, so ``docs/claims.md`` can say under which
assumptions a claim holds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fabrictwin.spec.scenario import ScenarioSpec
from fabrictwin.twin.compare import Variant
from fabrictwin.twin.simulate import simulate

# Designs of the compute fabric compared for the speed claims: (label, cluster overrides).
FABRIC_DESIGNS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("tcp-100g x1", {"fabric": "tcp-100g", "nics_per_node": 1}),
    ("tcp-100g x2", {"fabric": "tcp-100g", "nics_per_node": 2}),
    ("tcp-100g x8", {"fabric": "tcp-100g", "nics_per_node": 8}),
    ("roce-400g x8", {"fabric": "roce-400g", "nics_per_node": 8}),
    ("spectrum-x-400g x8", {"fabric": "spectrum-x-400g", "nics_per_node": 8}),
    ("ib-ndr x8", {"fabric": "ib-ndr", "nics_per_node": 8}),
    ("ib-ndr x8 + SHARP", {"fabric": "ib-ndr", "nics_per_node": 8, "sharp": True}),
)
REFERENCE = "ib-ndr x8"

# The same question one generation earlier: DGX A100 with 8 x HDR (200 Gb/s) InfiniBand.
A100_DESIGNS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("tcp-100g x1", {"system": "dgx-a100", "fabric": "tcp-100g", "nics_per_node": 1}),
    ("tcp-100g x2", {"system": "dgx-a100", "fabric": "tcp-100g", "nics_per_node": 2}),
    ("tcp-100g x4", {"system": "dgx-a100", "fabric": "tcp-100g", "nics_per_node": 4}),
    ("tcp-100g x8", {"system": "dgx-a100", "fabric": "tcp-100g", "nics_per_node": 8}),
    ("roce-200g x8", {"system": "dgx-a100", "fabric": "roce-200g", "nics_per_node": 8}),
    ("ib-hdr x8", {"system": "dgx-a100", "fabric": "ib-hdr", "nics_per_node": 8}),
    ("ib-hdr x8 + SHARP", {"system": "dgx-a100", "fabric": "ib-hdr", "nics_per_node": 8, "sharp": True}),
)
A100_REFERENCE = "ib-hdr x8"

# What the seeds claim: model -> (Ethernet hours, InfiniBand hours, claimed reduction).
SEED_SPEED_CLAIMS = {"resnet50": (6.5, 4.2, 0.35), "bert-large": (85.0, 48.0, 0.43)}
SEED_IDLE_CLAIM = 0.50


@dataclass(frozen=True)
class SpeedCheck:
    """One model's fabric comparison against the seed's claim."""

    model: str
    designs: list[Variant]
    claimed_reduction: float
    claimed_hours: tuple[float, float]
    reference: str = REFERENCE
    """The InfiniBand design the others are compared with."""
    system: str = "dgx-h100"

    def result(self, label: str) -> Any:
        return next(v.result for v in self.designs if v.varied["design"] == label)

    def reduction_vs(self, label: str) -> float:
        """1 - time(InfiniBand) / time(design): the seed's "x% faster"."""
        return 1.0 - self.result(self.reference).time_to_train_s / self.result(label).time_to_train_s


@dataclass(frozen=True)
class DpuCheck:
    """One scenario with and without a BlueField-3 DPU."""

    name: str
    without: Any
    with_dpu: Any

    @property
    def speedup(self) -> float:
        return self.without.time_to_train_s / self.with_dpu.time_to_train_s


def _with_cluster(scenario: ScenarioSpec, label: str, overrides: dict[str, Any]) -> ScenarioSpec:
    data = scenario.model_dump()
    data["cluster"].update(overrides)
    data["name"] = f"{scenario.name} {label}"
    return ScenarioSpec.model_validate(data)


def speed_check(
    scenario: ScenarioSpec,
    tick: Callable[[], None] | None = None,
    designs: tuple[tuple[str, dict[str, Any]], ...] = FABRIC_DESIGNS,
    reference: str = REFERENCE,
) -> SpeedCheck:
    """Simulate every fabric design of ``scenario``."""
    rows = []
    for label, overrides in designs:
        rows.append(Variant({"design": label}, simulate(_with_cluster(scenario, label, overrides))))
        if tick:
            tick()
    eth, ib, red = SEED_SPEED_CLAIMS.get(scenario.job.model_name, (0.0, 0.0, 0.0))
    system = rows[0].result.resolved.system.id
    return SpeedCheck(scenario.job.model_name, rows, red, (eth, ib), reference, system)


def dpu_check(scenario: ScenarioSpec, dpu: str = "bluefield-3") -> DpuCheck:
    """The scenario without and with a DPU taking its infrastructure work."""
    return DpuCheck(
        scenario.name, simulate(scenario), simulate(_with_cluster(scenario, f"+{dpu}", {"dpu": dpu}))
    )
