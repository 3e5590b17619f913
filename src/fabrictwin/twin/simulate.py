"""Scenario -> result: the training twin's facade.

Order of the model (each step documented in docs/models/):
1. resolve ids; derive dp and micro-batches; check memory (``timeline.memory``);
2. simulate the step's streams (``timeline.step``) with collective costs from ``twin.comm``;
3. host/DPU CPU budget (``node.cpu``) at the traffic of that step; data stall (``node.storage``);
   CPU interference when the host is over-committed;
4. straggler wait for the slowest of N servers (``timeline.stragglers``);
5. time to train under failures with Young/Daly checkpoints (``timeline.failures``); cost, energy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from fabrictwin.errors import Infeasible
from fabrictwin.node.cpu import CpuBudget
from fabrictwin.node.storage import checkpoint_seconds
from fabrictwin.spec.scenario import ScenarioSpec
from fabrictwin.timeline.compute import peak_flops
from fabrictwin.timeline.events import Span
from fabrictwin.timeline.failures import Goodput, expected_wall_time
from fabrictwin.timeline.memory import MemoryBudget, check_fits, memory_budget
from fabrictwin.timeline.step import StepConfig, StepTimeline, simulate_step
from fabrictwin.timeline.stragglers import host_jitter_cv, straggler_wait_s
from fabrictwin.timeline.workload import ComputeCalibration
from fabrictwin.twin import hostside
from fabrictwin.twin.comm import comm_function, fabric_of, job_groups, nccl_comm_function
from fabrictwin.twin.cost import run_cost
from fabrictwin.twin.resolve import Resolved, resolve

# Checkpoint = 16-bit weights + fp32 master, momentum, variance: 2 + 12 bytes per parameter
# (Rajbhandari et al. 2020, ZeRO, section 3.1).
CHECKPOINT_BYTES_PER_PARAM = 14.0
# Below this share of the step, no single overhead is called the bottleneck.
BOTTLENECK_MIN_SHARE = 0.10


@dataclass(frozen=True)
class Layout:
    """Derived parallel layout."""

    gpus: int
    dp: int
    local_batch: int
    microbatch: int
    microbatches: int


@dataclass(frozen=True)
class SimulationResult:
    """Everything `simulate` reports."""

    scenario: ScenarioSpec
    resolved: Resolved
    layout: Layout
    timeline: StepTimeline
    memory: MemoryBudget
    cpu: CpuBudget
    breakdown_s: dict[str, float]
    step_time_s: float
    goodput: Goodput
    mfu: float
    gpu_busy_fraction: float
    bottleneck: str
    cost_usd: float
    energy_kwh: float
    cost_breakdown_usd: dict[str, float]
    """Parts of ``cost_usd`` by ``cost.model``: ``rental``, or ``servers network energy``."""
    notes: tuple[str, ...]

    @property
    def time_to_train_s(self) -> float:
        return self.goodput.wall_s

    def trace_spans(self) -> list[Span]:
        """The step's GPU streams plus the host-side waits that follow them (data stall, CPU
        interference, straggler wait) on a ``step/host`` track, for the Perfetto trace."""
        spans = list(self.timeline.spans)
        t = self.timeline.step_time_s
        for key in ("data_stall", "cpu_interference", "straggler_wait"):
            sec = self.breakdown_s.get(key, 0.0)
            if sec > 0:
                spans.append(Span(key, "step/host", key, t, t + sec))
                t += sec
        return spans

    def to_json(self) -> dict[str, Any]:
        """The object `simulate --json` prints."""
        return {
            "scenario": self.scenario.name,
            "step_time_s": self.step_time_s,
            "time_to_train_s": self.time_to_train_s,
            "gpu_busy_fraction": self.gpu_busy_fraction,
            "mfu": self.mfu,
            "breakdown_s": dict(sorted(self.breakdown_s.items())),
            "bottleneck": self.bottleneck,
            "goodput": self.goodput.goodput,
            "cost_usd": self.cost_usd,
            "cost_breakdown_usd": dict(self.cost_breakdown_usd),
            "energy_kwh": self.energy_kwh,
            "gpus": self.layout.gpus,
            "notes": list(self.notes),
        }


def derive_layout(scenario: ScenarioSpec, gpus_per_node: int) -> Layout:
    """Data-parallel degree, local batch and micro-batches.

    Raises:
        Infeasible: GPUs not divisible by tp*pp, ep not dividing dp, or batch not divisible.
    """
    p = scenario.parallelism
    gpus = scenario.cluster.nodes * gpus_per_node
    model_parallel = p.tp * p.pp * p.cp
    if gpus % model_parallel:
        raise Infeasible(f"{gpus} GPUs are not divisible by tp*pp*cp = {model_parallel}")
    dp = gpus // model_parallel
    if dp % p.ep:
        raise Infeasible(f"expert parallel {p.ep} must divide the data-parallel degree {dp}")
    gb = scenario.job.global_batch
    if gb % dp:
        raise Infeasible(
            f"global batch {gb} is not divisible by data-parallel degree {dp}",
            nearest=f"global batch {max(dp, round(gb / dp) * dp)}",
        )
    local = gb // dp
    mb = p.microbatch_size or (1 if p.pp > 1 else local)
    if local % mb:
        raise Infeasible(f"local batch {local} is not divisible by micro-batch {mb}")
    return Layout(gpus, dp, local, mb, local // mb)


def _check_context_parallel(s: ScenarioSpec, r: Resolved) -> None:
    """Megatron-Core splits each sequence into 2 x cp chunks (two per rank, for causal balance).

    Raises:
        Infeasible: the sequence does not split that way.
    """
    cp = s.parallelism.cp
    tokens = r.workload.tokens_per_sample
    if cp > 1 and tokens % (2 * cp):
        raise Infeasible(f"sequence length {tokens} is not divisible by 2 x cp = {2 * cp}")


def _fit_microbatch(s: ScenarioSpec, r: Resolved, lay: Layout) -> tuple[Layout, MemoryBudget]:
    """Without pipeline parallelism and with no micro-batch given, accumulate gradients over the
    fewest micro-batches that fit (what frameworks' users do; MLPerf local batches include it).

    Raises:
        Infeasible: no micro-batch size fits.
    """
    if s.parallelism.pp > 1 or s.parallelism.microbatch_size is not None:
        return lay, _memory(s, r, lay)
    error: Infeasible | None = None
    for m in range(1, lay.local_batch + 1):
        if lay.local_batch % m:
            continue
        trial = Layout(lay.gpus, lay.dp, lay.local_batch, lay.local_batch // m, m)
        try:
            return trial, _memory(s, r, trial)
        except Infeasible as exc:
            error = exc  # keep the smallest micro-batch's numbers: the most telling
    assert error is not None
    raise error


def _in_flight(s: ScenarioSpec, lay: Layout) -> float:
    """Micro-batches' worth of activations stage 0 holds at its peak: min(p, m) for 1F1B; with v
    interleaved chunks, its warm-up passes + 1, each a 1/v chunk (Narayanan et al. SC'21, 2.2.2)."""
    p = s.parallelism
    if p.schedule != "interleaved" or p.pp == 1:
        return float(min(p.pp, lay.microbatches))
    v = p.virtual_stages
    passes = min(2 * (p.pp - 1) + (v - 1) * p.pp + 1, lay.microbatches * v)
    return passes / v


def _memory(s: ScenarioSpec, r: Resolved, lay: Layout) -> MemoryBudget:
    p = s.parallelism
    w = r.workload
    attn = 0.0
    if w.family == "transformer" and w.hidden:
        # Share of the catalog's activations that is the 5 a s^2 attention term (Korthikanti eq. 1):
        # what exceeds 34 h bytes per token per layer; 0 when the catalog already leaves it out.
        per_token_layer = w.activation_bytes_per_sample / (w.layers * w.tokens_per_sample)
        attn = max(0.0, per_token_layer - 34.0 * w.hidden) / per_token_layer
    budget = memory_budget(
        params=w.params_per_ep_rank(p.ep),
        activation_bytes_per_sample=w.activation_bytes_per_sample / p.cp,
        attention_share=attn,
        microbatch=lay.microbatch,
        in_flight=_in_flight(s, lay),
        tp=p.tp,
        pp=p.pp,
        dp=lay.dp * p.cp,  # the distributed optimizer shards over dp x cp
        zero_stage=p.zero_stage,
        recompute=p.recompute,
        hbm_bytes=r.gpu.hbm_bytes,
    )
    check_fits(budget)
    return budget


def step_config(s: ScenarioSpec, r: Resolved, lay: Layout) -> StepConfig:
    """The step model's inputs for this scenario."""
    p = s.parallelism
    groups = job_groups(r.system.gpus, p.tp, p.pp, lay.dp * p.cp, p.ep, p.cp)
    c = s.cluster
    if c.collectives == "alpha-beta":
        comm = comm_function(fabric_of(r.system, r.fabric, r.nics_per_node, c.sharp), groups)
    else:
        fidelity = "flow" if c.collectives == "nccl-flow" else "analytic"
        comm = nccl_comm_function(
            r.system, r.gpu, r.fabric, r.switch, r.nics_per_node, c.sharp, groups, fidelity
        )
    return StepConfig(
        workload=r.workload,
        gpu=r.gpu,
        precision=s.job.precision,
        tp=p.tp,
        pp=p.pp,
        dp=lay.dp * p.cp,
        ep=p.ep,
        cp=p.cp,
        zero_stage=p.zero_stage,
        virtual_stages=p.virtual_stages if p.schedule == "interleaved" else 1,
        microbatch=lay.microbatch,
        microbatches=lay.microbatches,
        recompute=p.recompute,
        bucket_bytes=p.bucket_bytes,
        comm=comm,
    )


def simulate(scenario: ScenarioSpec, calibration: ComputeCalibration | None = None) -> SimulationResult:
    """Simulate one scenario (``calibration`` overrides the fitted compute constants, for fitting).

    Raises:
        NotFound: an unknown catalog id.
        Infeasible: the layout does not divide, the job does not fit in memory, or the schedule
            cannot run.
    """
    r = resolve(scenario, calibration)
    _check_context_parallel(scenario, r)
    lay = derive_layout(scenario, r.system.gpus)
    lay, mem = _fit_microbatch(scenario, r, lay)
    tl = simulate_step(step_config(scenario, r, lay))
    # gradients are reduced over dp x cp ranks (the network term)
    host = hostside.evaluate(scenario, r, lay.local_batch, lay.dp * scenario.parallelism.cp, tl)
    breakdown = dict(tl.breakdown_s)
    breakdown["data_stall"] = host.stall.stall_s
    breakdown["cpu_interference"] = host.interference_s
    core = tl.step_time_s + host.stall.stall_s + host.interference_s
    cv = scenario.host.jitter_cv
    if cv is None:
        cv = host_jitter_cv(host.budget.infra_cores, host.budget.host_cores)
    breakdown["straggler_wait"] = straggler_wait_s(core, cv, scenario.cluster.nodes)
    step = core + breakdown["straggler_wait"]
    return _finish(scenario, r, lay, tl, mem, host, breakdown, step)


def _finish(
    s: ScenarioSpec,
    r: Resolved,
    lay: Layout,
    tl: StepTimeline,
    mem: MemoryBudget,
    host: hostside.HostEffects,
    breakdown: dict[str, float],
    step: float,
) -> SimulationResult:
    steps = math.ceil(s.job.samples_to_train / s.job.global_batch)
    ckpt_s = checkpoint_seconds(
        CHECKPOINT_BYTES_PER_PARAM * r.workload.params,
        s.cluster.nodes,
        s.data.storage_write_Bps,
        s.data.storage_aggregate_write_Bps,
    )
    good = expected_wall_time(
        steps * step,
        failures_per_gpu_hour=s.reliability.failures_per_gpu_hour,
        gpus=lay.gpus,
        checkpoint_s=ckpt_s,
        restart_s=s.reliability.restart_s,
        interval_s=s.reliability.checkpoint_interval_s,
    )
    flops = r.workload.train_flops_per_sample * s.job.global_batch
    mfu = flops / (step * lay.gpus * peak_flops(r.gpu, s.job.precision))
    busy = (breakdown.get("compute", 0.0) + breakdown.get("optimizer", 0.0)) / step
    energy = good.wall_s * s.cluster.nodes * r.system.power_w * s.cost.pue / 3.6e6
    parts = run_cost(s, r, lay.gpus, good.wall_s, energy)
    return SimulationResult(
        scenario=s,
        resolved=r,
        layout=lay,
        timeline=tl,
        memory=mem,
        cpu=host.budget,
        breakdown_s=breakdown,
        step_time_s=step,
        goodput=good,
        mfu=mfu,
        gpu_busy_fraction=busy,
        bottleneck=bottleneck(breakdown, step),
        cost_usd=sum(parts.values()),
        energy_kwh=energy,
        cost_breakdown_usd=parts,
        notes=host.notes,
    )


def bottleneck(breakdown: dict[str, float], step: float) -> str:
    """The largest time sink that is not useful compute, or ``compute``."""
    groups: dict[str, float] = {}
    for key, sec in breakdown.items():
        if key in ("compute", "optimizer"):
            continue
        name = "exposed_communication" if key.startswith("comm:") else key
        groups[name] = groups.get(name, 0.0) + sec
    if not groups:
        return "compute"
    name, sec = max(sorted(groups.items()), key=lambda kv: kv[1])
    return name if sec >= BOTTLENECK_MIN_SHARE * step else "compute"
