"""Host-side effects of a step: CPU budget, data stall and CPU interference.

Traffic per server is read off the simulated step (bytes of collectives crossing the network over
TCP, samples to load), turned into core demand by ``node.cpu`` and into a data stall by
``node.storage``. Over-commitment of the host hurts in one of two ways, which the result names:

* data stall: the loader's decode or storage client gets fewer cores than it needs, so batches
  arrive late (the GPU waits for input);
* interference: other work time-slices with the training process's own threads (kernel launch,
  NCCL proxy/socket threads). Under processor sharing each runnable thread gets cores/demand of a
  core, so the CPU-side critical path of a step -- the calibrated per-step overhead, plus exposed
  TCP communication whose progress is CPU-bound -- stretches by demand/cores.
"""

from __future__ import annotations

from dataclasses import dataclass

from fabrictwin.node.cpu import JPEG_IMAGES_PER_CORE_S, CpuBudget, HostServices, NodeLoad, cpu_budget
from fabrictwin.node.storage import DataStall, LoaderRates, PipelineNeed, data_stall
from fabrictwin.spec.scenario import ScenarioSpec
from fabrictwin.timeline.step import StepTimeline
from fabrictwin.twin.resolve import Resolved


@dataclass(frozen=True)
class HostEffects:
    budget: CpuBudget
    stall: DataStall
    interference_s: float
    notes: tuple[str, ...]


def _network_bytes_per_node(s: ScenarioSpec, r: Resolved, dp: int) -> float:
    """Bytes a server sends over the scale-out network in one step (TCP only; RDMA costs no CPU).

    A data-parallel all-reduce over N servers moves 2 (N-1)/N of each rank's 1/ppn share per
    rank, i.e. 2 (N-1)/N of a rank's gradient bytes per data-parallel group on the server; there
    are tp such groups (one per tensor-parallel shard). ZeRO-3 adds a parameter gather: x 3/2.
    """
    p = s.parallelism
    ppn = max(1, r.system.gpus // p.tp)
    n = -(-dp // ppn)
    if r.fabric.transport != "tcp" or n == 1:
        return 0.0
    grad = 2.0 * r.workload.params_per_ep_rank(p.ep) / (p.tp * p.pp)
    factor = 3.0 if p.zero_stage >= 3 else 2.0
    return factor * (n - 1) / n * grad * p.tp


def _unique_samples_per_node(s: ScenarioSpec, r: Resolved, local_batch: int) -> float:
    """Distinct samples a server's replicas consume per step: one ``local_batch`` per data-parallel
    replica; tensor-, pipeline- and context-parallel ranks of a replica share its samples."""
    p = s.parallelism
    return local_batch * r.system.gpus / (p.tp * p.pp * p.cp)


def node_load(s: ScenarioSpec, r: Resolved, local_batch: int, step_s: float) -> NodeLoad:
    """Traffic and work per second on one server at a step of ``step_s``."""
    w = r.workload
    samples = _unique_samples_per_node(s, r, local_batch)
    sample_bytes = s.data.sample_bytes or w.sample_bytes
    read = samples * sample_bytes * (1.0 - s.data.cache_hit_rate) / step_s
    images = samples / step_s if (w.sample_kind == "image" and not s.data.decode_on_gpu) else 0.0
    tokens = samples * w.tokens_per_sample / step_s if w.sample_kind == "text" else 0.0
    return NodeLoad(
        network_tx_Bps=0.0,
        network_rx_Bps=0.0,
        storage_read_Bps=read,
        north_south_Bps=read,
        images_per_s=images,
        tokens_per_s=tokens,
    )


def _budget(s: ScenarioSpec, r: Resolved, load: NodeLoad) -> CpuBudget:
    services = HostServices(
        s.host.vswitch,
        s.host.encryption,
        s.host.firewall,
        s.host.telemetry,
        s.data.protocol,
        s.data.gpudirect_storage,
    )
    return cpu_budget(
        cpu=r.cpu,
        sockets=r.system.cpu_sockets,
        gpus=r.system.gpus,
        load=load,
        services=services,
        dpu=r.dpu,
        offloads=tuple(s.cluster.dpu_offloads),
    )


def _stall(
    s: ScenarioSpec,
    r: Resolved,
    budget: CpuBudget,
    load: NodeLoad,
    local_batch: int,
    loader_cores: float,
    step: float,
) -> DataStall:
    """The loader gets the cores left to it; storage reads run at the fabric rate times any DPU
    throttle on the tasks in the read path."""
    decode_rate = float("inf")
    if load.images_per_s > 0:
        decode_rate = max(loader_cores, 1e-6) * JPEG_IMAGES_PER_CORE_S
    throttle = min(budget.throttle.get(t, 1.0) for t in ("storage", "vswitch", "crypto", "firewall"))
    samples = _unique_samples_per_node(s, r, local_batch)
    need = PipelineNeed(samples, s.data.sample_bytes or r.workload.sample_bytes, s.data.cache_hit_rate)
    rates = LoaderRates(s.data.storage_read_Bps * throttle, decode_rate)
    return data_stall(need, rates, step, s.data.prefetch_depth)


def _interference(r: Resolved, tl: StepTimeline, over: float) -> float:
    """Processor sharing stretches the CPU-side critical path by the over-commitment."""
    cpu_critical = tl.breakdown_s.get("step_overhead", 0.0)
    if r.fabric.transport == "tcp":
        cpu_critical += sum(v for k, v in tl.breakdown_s.items() if k.startswith("comm:dp"))
    return cpu_critical * max(0.0, over)


def evaluate(s: ScenarioSpec, r: Resolved, local_batch: int, dp: int, tl: StepTimeline) -> HostEffects:
    """CPU budget, data stall and interference of one server."""
    step = tl.step_time_s
    base = node_load(s, r, local_batch, step)
    net = _network_bytes_per_node(s, r, dp) / step
    load = NodeLoad(
        net, net, base.storage_read_Bps, base.north_south_Bps, base.images_per_s, base.tokens_per_s
    )
    budget = _budget(s, r, load)
    # Cores left for the loader after training threads and the other infrastructure tasks.
    other = budget.infra_cores - budget.host_demand.get("data_loading", 0.0)
    loader_cores = max(0.0, budget.host_cores - budget.training_cores - other)
    stall = _stall(s, r, budget, load, local_batch, loader_cores, step)
    notes: list[str] = []
    if stall.stall_s > 0:
        notes.append(
            f"data stall: loader limited by {stall.limited_by} ({stall.load_s * 1e3:.1f} ms per batch)"
        )
    # Loader workers are sized to the machine: they use at most the cores left to them (the rest
    # of their demand became the data stall above). What still exceeds the cores is time-sliced.
    loading = min(budget.host_demand.get("data_loading", 0.0), loader_cores)
    over = (budget.training_cores + other + loading) / budget.host_cores - 1.0
    if over > 0:
        notes.append(
            f"host CPU over-committed by {over:.0%}: infrastructure threads slow the training threads"
        )
    return HostEffects(budget, stall, _interference(r, tl, over), tuple(notes))
