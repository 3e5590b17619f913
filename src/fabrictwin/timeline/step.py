"""One training step as streams of operations, simulated on the event core.

Every data-parallel replica runs the same schedule, so one replica is simulated: all of its
pipeline stages, each with a compute stream (forward/backward passes, tensor- and expert-parallel
collectives, which sit on the critical path as in Megatron-LM), a data-parallel communication
stream (gradient buckets overlapped with backward as PyTorch DDP does; ZeRO-3/FSDP parameter
gathers prefetched one bucket ahead) and a point-to-point stream for pipeline activations.
Exposed communication is the part of a collective during which the compute stream of its stage
sits idle; idle time with no communication to blame is pipeline bubble.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

from fabrictwin.errors import Infeasible
from fabrictwin.spec.hardware import GpuSpec
from fabrictwin.timeline.compute import MicrobatchTime, attention_time, microbatch_time, optimizer_time
from fabrictwin.timeline.events import Op, Span, run_ops
from fabrictwin.timeline.pipeline import stage_order
from fabrictwin.timeline.workload import WorkloadProfile

CommFn = Callable[[str, float, str], float]
"""(operation, bytes per rank, group in {dp, tp, pp, ep}) -> seconds."""

# Buckets beyond this count are merged: the step time changes by less than one bucket's share.
MAX_BUCKETS = 32


@dataclass(frozen=True)
class StepConfig:
    """Everything the step simulation needs (resolved, SI)."""

    workload: WorkloadProfile
    gpu: GpuSpec
    precision: str
    tp: int
    pp: int
    dp: int
    ep: int
    zero_stage: int
    virtual_stages: int
    microbatch: float
    """Samples per micro-batch."""
    microbatches: int
    """Micro-batches per step per replica."""
    recompute: str
    bucket_bytes: float
    comm: CommFn
    cp: int = 1
    """Context-parallel degree: each GPU holds 1/cp of every sequence (``dp`` includes cp)."""

    @property
    def chunks(self) -> int:
        return self.pp * self.virtual_stages

    @property
    def grad_bytes_per_chunk(self) -> float:
        width = 4.0 if self.precision in ("fp32", "tf32") else 2.0
        return width * self.workload.params_per_ep_rank(self.ep) / (self.tp * self.chunks)


@dataclass(frozen=True)
class StepTimeline:
    """The simulated step."""

    spans: list[Span]
    step_time_s: float
    breakdown_s: dict[str, float]
    """Mean over stages of where each stage's compute stream spent the step; sums to the step."""


def _activation_bytes(cfg: StepConfig) -> float:
    """16-bit activations of one micro-batch at a layer boundary on one GPU (1/cp of the tokens)."""
    w = cfg.workload
    return cfg.microbatch * w.tokens_per_sample / cfg.cp * w.hidden * 2.0


def _cp_exposed_s(cfg: StepConfig, direction: str, layers: int) -> float:
    """Context-parallel ring of one pass: per layer, cp - 1 sends of this GPU's keys and values
    (backward: also their gradients, twice the bytes; a recomputed forward: its ring again),
    hidden behind the layer's attention matmuls as Megatron-Core overlaps them; only what
    exceeds that compute is exposed."""
    w = cfg.workload
    # a tensor-parallel rank holds kv_heads / tp heads, at least one
    width = max(w.kv_hidden / cfg.tp, w.hidden / max(w.heads, 1))
    kv = 2.0 * cfg.microbatch * w.tokens_per_sample / cfg.cp * width * 2.0
    attn = attention_time(w, cfg.gpu, cfg.precision, cfg.microbatch, cfg.tp * cfg.cp * w.layers)

    def exposed(factor: float) -> float:
        return max(0.0, (cfg.cp - 1) * cfg.comm("send", factor * kv, "cp") - factor * attn)

    passes = [1.0] if direction == "F" else [2.0] + ([1.0] if cfg.recompute == "full" else [])
    return layers * sum(exposed(f) for f in passes)


def _pass_comm(cfg: StepConfig, direction: str) -> list[tuple[str, float]]:
    """Tensor-, context- and expert-parallel communication of one pass of one chunk that the
    compute stream waits for: (category, seconds)."""
    w = cfg.workload
    layers = math.ceil(w.layers / cfg.chunks)
    act = _activation_bytes(cfg)
    out: list[tuple[str, float]] = []
    if cfg.cp > 1 and w.family == "transformer":
        out.append(("comm:cp_ring", _cp_exposed_s(cfg, direction, layers)))
    if cfg.tp > 1 and w.family == "transformer":
        count = 2 * layers * (2 if direction == "B" and cfg.recompute == "full" else 1)
        out.append(("comm:tp_all_reduce", count * cfg.comm("all_reduce", act, "tp")))
    if cfg.ep > 1 and w.is_moe:
        out.append(("comm:ep_all_to_all", 2 * layers * cfg.comm("all_to_all", act * w.top_k, "ep")))
    return out


def _buckets(cfg: StepConfig) -> int:
    return max(1, min(MAX_BUCKETS, math.ceil(cfg.grad_bytes_per_chunk / cfg.bucket_bytes)))


class _Builder:
    def __init__(self, cfg: StepConfig) -> None:
        self.cfg = cfg
        self.ops: list[Op] = []
        self.mb_time: MicrobatchTime = microbatch_time(
            cfg.workload, cfg.gpu, cfg.precision, cfg.microbatch, cfg.tp * cfg.chunks * cfg.cp, cfg.recompute
        )
        self.dp_op = "reduce_scatter" if cfg.zero_stage >= 1 else "all_reduce"
        self.dp_ops: dict[int, list[str]] = {}

    def add(self, name: str, stream: str, dur: float, cat: str, deps: tuple[str, ...] = ()) -> str:
        self.ops.append(Op(name, stream, dur, cat, deps))
        return name

    def dp_bucket_time(self, nbuckets: int, op: str | None = None) -> float:
        return self.cfg.comm(op or self.dp_op, self.cfg.grad_bytes_per_chunk / nbuckets, "dp")

    def pipeline_pass(self, s: int, direction: str, chunk: int, mb: int, last: bool) -> None:
        cfg = self.cfg
        vs = chunk * cfg.pp + s
        nvs = cfg.chunks
        comp = f"stage{s}/compute"
        tag = f"{direction}{chunk}.{mb}"
        deps: tuple[str, ...] = ()
        if direction == "F" and vs > 0:
            deps = (f"p2pF{vs - 1}.{mb}",)
        if direction == "B" and vs < nvs - 1:
            deps = (f"p2pB{vs + 1}.{mb}",)
        dur = self.mb_time.forward_s if direction == "F" else self.mb_time.backward_s
        if direction == "B" and last and self.cfg.dp > 1:
            self._bucketed_backward(s, chunk, tag, dur, deps)
        else:
            self.add(f"s{s}/{tag}", comp, dur, "compute", deps)
        for cat, seconds in _pass_comm(cfg, direction):
            self.add(f"s{s}/{tag}/{cat}", comp, seconds, cat)
        send_to = vs + 1 if direction == "F" else vs - 1
        if 0 <= send_to < nvs and cfg.pp > 1:
            act = _activation_bytes(cfg)
            last_op = self.ops[-1].name
            self.add(
                f"p2p{direction}{vs}.{mb}",
                f"stage{s}/p2p",
                cfg.comm("send", act, "pp"),
                "comm:pp_send",
                (last_op,),
            )
        elif 0 <= send_to < nvs:
            self.add(f"p2p{direction}{vs}.{mb}", f"stage{s}/p2p", 0.0, "comm:pp_send", (self.ops[-1].name,))

    def _bucketed_backward(self, s: int, chunk: int, tag: str, dur: float, deps: tuple[str, ...]) -> None:
        n = _buckets(self.cfg)
        bucket_s = self.dp_bucket_time(n)
        for k in range(n):
            piece = self.add(
                f"s{s}/{tag}#{k}", f"stage{s}/compute", dur / n, "compute", deps if k == 0 else ()
            )
            name = self.add(
                f"s{s}/dp{chunk}.{k}", f"stage{s}/comm-dp", bucket_s, f"comm:dp_{self.dp_op}", (piece,)
            )
            self.dp_ops.setdefault(s, []).append(name)

    def finish_stage(self, s: int) -> None:
        cfg = self.cfg
        comp = f"stage{s}/compute"
        held = cfg.workload.params_per_ep_rank(cfg.ep) / (cfg.tp * cfg.pp)
        local = held / (cfg.dp if cfg.zero_stage >= 1 else 1)
        opt = self.add(
            f"s{s}/optimizer",
            comp,
            optimizer_time(local, cfg.gpu),
            "optimizer",
            tuple(self.dp_ops.get(s, [])),
        )
        last = opt
        if cfg.zero_stage in (1, 2) and cfg.dp > 1:
            gather = self.dp_bucket_time(1, "all_gather") * cfg.virtual_stages
            last = self.add(f"s{s}/dp_gather", f"stage{s}/comm-dp", gather, "comm:dp_all_gather", (opt,))
        self.add(f"s{s}/overhead", comp, cfg.workload.calibration.step_overhead_s, "step_overhead", (last,))


def _zero3_ops(b: _Builder) -> None:
    """ZeRO-3 / FSDP on one stage: for every micro-batch, gather parameters per bucket (prefetch
    one bucket ahead) in forward and backward, and reduce-scatter gradients per bucket in backward
    (Rajbhandari et al. 2020, 5.3; FSDP re-gathers per micro-batch unless told to keep them)."""
    n = _buckets(b.cfg)
    gather = b.dp_bucket_time(n, "all_gather")
    scatter = b.dp_bucket_time(n, "reduce_scatter")
    comp, comm = "stage0/compute", "stage0/comm-dp"
    for mb in range(b.cfg.microbatches):
        for direction, total in (("F", b.mb_time.forward_s), ("B", b.mb_time.backward_s)):
            tag = f"{direction}{mb}."
            for k in range(n):
                pre = (f"z{tag}{k - 2}",) if k >= 2 else ()
                ag = b.add(f"ag{tag}{k}", comm, gather, "comm:dp_all_gather", pre)
                piece = b.add(f"z{tag}{k}", comp, total / n, "compute", (ag,))
                if direction == "B":
                    rs = b.add(f"rs{tag}{k}", comm, scatter, "comm:dp_reduce_scatter", (piece,))
                    b.dp_ops.setdefault(0, []).append(rs)
            for cat, seconds in _pass_comm(b.cfg, direction):
                b.add(f"z{tag}/{cat}", comp, seconds, cat)


def build_step_ops(cfg: StepConfig) -> list[Op]:
    """The operations of one step, in issue order.

    Raises:
        Infeasible: ZeRO-3 combined with pipeline parallelism (DeepSpeed does not support it),
            or pipeline parallelism of a non-transformer model.
    """
    b = _Builder(cfg)
    if cfg.zero_stage >= 3:
        if cfg.pp > 1:
            raise Infeasible("ZeRO-3/FSDP with pipeline parallelism is not supported (DeepSpeed, Megatron)")
        _zero3_ops(b)
        b.finish_stage(0)
        return b.ops
    if cfg.pp > 1 and cfg.workload.family != "transformer":
        raise Infeasible(f"pipeline parallelism is modelled for transformers, not {cfg.workload.id}")
    for s in range(cfg.pp):
        order = stage_order(cfg.pp, cfg.virtual_stages, cfg.microbatches, s)
        last_b: dict[int, int] = {}
        for i, (direction, chunk, _mb) in enumerate(order):
            if direction == "B":
                last_b[chunk] = i
        for i, (direction, chunk, mb) in enumerate(order):
            b.pipeline_pass(s, direction, chunk, mb, last=(i == last_b.get(chunk)))
    for s in range(cfg.pp):
        b.finish_stage(s)
    return b.ops


def simulate_step(cfg: StepConfig) -> StepTimeline:
    """Build and run one step; return spans, step time and the per-category breakdown."""
    spans = run_ops(build_step_ops(cfg))
    end = max(span.end_s for span in spans)
    return StepTimeline(spans, end, attribute(spans, cfg.pp, end))


def attribute(spans: list[Span], stages: int, end: float) -> dict[str, float]:
    """Split each stage's step into compute-stream categories and attributed idle time; average."""
    by_stream: dict[str, list[Span]] = {}
    for x in spans:
        if x.end_s > x.start_s:
            by_stream.setdefault(x.stream, []).append(x)
    tracks = {name: _Track(sorted(xs, key=lambda x: x.start_s)) for name, xs in by_stream.items()}
    empty = _Track([])
    total: dict[str, float] = {}
    for s in range(stages):
        own = tracks.get(f"stage{s}/compute", empty)
        comm = tracks.get(f"stage{s}/comm-dp", empty)
        neighbours = {f"stage{(s - 1) % stages}/p2p", f"stage{(s + 1) % stages}/p2p"}
        p2p = [tracks[n] for n in sorted(neighbours) if n in tracks]
        for cat, sec in _stage_breakdown(own, comm, p2p, end).items():
            total[cat] = total.get(cat, 0.0) + sec / stages
    return total


class _Track:
    """Spans of one stream (never overlapping), sorted, with bisectable starts and ends."""

    def __init__(self, spans: list[Span]) -> None:
        self.spans = spans
        self.starts = [x.start_s for x in spans]
        self.ends = [x.end_s for x in spans]

    def overlapping(self, a: float, b: float) -> list[Span]:
        """Spans that intersect [a, b)."""
        lo = bisect.bisect_right(self.ends, a)
        hi = bisect.bisect_left(self.starts, b)
        return self.spans[lo:hi]


def _stage_breakdown(own: _Track, comm: _Track, p2p: list[_Track], end: float) -> dict[str, float]:
    out: dict[str, float] = {}
    for x in own.spans:
        out[x.category] = out.get(x.category, 0.0) + (x.end_s - x.start_s)
    for a, b in _gaps(own.spans, end):
        near_comm = comm.overlapping(a, b)
        near_p2p = [x for track in p2p for x in track.overlapping(a, b)]
        for cat, sec in _blame(a, b, near_comm, near_p2p).items():
            out[cat] = out.get(cat, 0.0) + sec
    return out


def _gaps(own: list[Span], end: float) -> list[tuple[float, float]]:
    gaps, t = [], 0.0
    for x in own:
        if x.start_s > t + 1e-15:
            gaps.append((t, x.start_s))
        t = max(t, x.end_s)
    if end > t + 1e-15:
        gaps.append((t, end))
    return gaps


def _blame(a: float, b: float, comm: list[Span], p2p: list[Span]) -> dict[str, float]:
    """Idle [a, b): data-parallel comm first, then pipeline sends, the rest is bubble."""
    cuts = {a, b}
    for x in comm + p2p:
        cuts.update(t for t in (x.start_s, x.end_s) if a < t < b)
    edges = sorted(cuts)
    out: dict[str, float] = {}
    for lo, hi in itertools.pairwise(edges):
        mid = 0.5 * (lo + hi)
        cat = next((x.category for x in comm if x.start_s <= mid < x.end_s), None)
        if cat is None:
            cat = next((x.category for x in p2p if x.start_s <= mid < x.end_s), "pipeline_bubble")
        out[cat] = out.get(cat, 0.0) + (hi - lo)
    return out
