"""The input pipeline of one server: reads, decode, prefetch; and checkpoint write bursts.

Per step a server needs ``samples`` samples of ``sample_bytes``; the share ``1 - hit`` comes from
remote storage at the lower of the storage-fabric read bandwidth and what the storage client's
cores (or the DPU, with DOCA SNAP) can carry. Decoding on host cores runs at the rate its cores
allow. With a prefetch depth d >= 1 the loader works during the previous steps, so a step only
stalls by how much the loader's time per batch exceeds the training step (steady state of a
two-stage pipeline: throughput = the slower stage); with d = 0 loading is serial and the whole
load time is exposed. See docs/models/storage.md.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PipelineNeed:
    """What one server's loader must deliver per step."""

    samples: float
    sample_bytes: float
    cache_hit_rate: float

    @property
    def remote_bytes(self) -> float:
        return self.samples * self.sample_bytes * (1.0 - self.cache_hit_rate)


@dataclass(frozen=True)
class LoaderRates:
    """Rates the loader stages can sustain on one server."""

    read_Bps: float
    """Remote read bandwidth (storage fabric, client throttling applied)."""
    decode_samples_per_s: float
    """Host-side decode rate (inf when decode runs on the GPU or is trivial)."""


@dataclass(frozen=True)
class DataStall:
    """Loader time per step and the stall it causes."""

    load_s: float
    stall_s: float
    limited_by: str
    """``storage`` or ``decode``: which loader stage sets ``load_s``."""


def data_stall(need: PipelineNeed, rates: LoaderRates, step_s: float, prefetch_depth: int) -> DataStall:
    """Stall per step of the input pipeline behind a training step of ``step_s``.

    Raises:
        ValueError: a rate is not positive.
    """
    if rates.read_Bps <= 0 or rates.decode_samples_per_s <= 0:
        raise ValueError("loader rates must be positive")
    read_s = need.remote_bytes / rates.read_Bps
    decode_s = need.samples / rates.decode_samples_per_s
    # Reading and decoding run as concurrent stages of the loader: the slower one sets its rate.
    load_s = max(read_s, decode_s)
    limited = "storage" if read_s >= decode_s else "decode"
    stall = load_s if prefetch_depth == 0 else max(0.0, load_s - step_s)
    return DataStall(load_s, stall, limited)


def checkpoint_seconds(
    checkpoint_bytes: float, nodes: int, write_Bps_per_node: float, aggregate_Bps: float = float("inf")
) -> float:
    """Time to write one checkpoint (a blocking burst), every server writing its shard in
    parallel, capped by what the storage system absorbs in total.

    Raises:
        ValueError: no nodes or no write bandwidth.
    """
    if nodes < 1 or write_Bps_per_node <= 0 or aggregate_Bps <= 0:
        raise ValueError("need nodes >= 1 and positive write bandwidths")
    return checkpoint_bytes / min(nodes * write_Bps_per_node, aggregate_Bps)
