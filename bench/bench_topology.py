"""Benchmark: build a 16,384-GPU rail-optimized 3-tier InfiniBand fabric and route every ring-neighbour
flow under ECMP and adaptive routing, beside a straightforward networkx implementation.

Run: ``.venv/bin/python bench/bench_topology.py [--repeat 5] [--sample 400]``

Fabric: 2,048 DGX nodes x 8 NDR rails on radix-64 QM9700 switches (the B200 RA's 64-SU row:
512 leaves, 512 spines, 256 cores). Flows: NCCL-style rail rings, GPU r of node n sends to GPU r of
node n+1 (16,384 flows). The networkx baseline builds a DiGraph from the same links and, per flow,
enumerates ``all_shortest_paths``: ECMP picks one by hash, adaptive splits evenly over all of them.
It is too slow to run on every flow, so it runs on a sample stratified by path class (same leaf, same
pod, across pods) and its time is extrapolated by class counts; the printout says so.
"""

from __future__ import annotations

import argparse
import itertools

import networkx as nx
import numpy as np

from _timing import median_time
from fabrictwin.topology import Topology, build_fat_tree, route
from fabrictwin.topology.build import IntArray

NODES, RAILS, RADIX, LINK_BPS = 2048, 8, 64, 400e9
QPS = 4


def ring_flows(topo: Topology) -> tuple[IntArray, IntArray]:
    node = np.repeat(np.arange(topo.nodes), topo.rails)
    rail = np.tile(np.arange(topo.rails), topo.nodes)
    return topo.endpoint_of(node, rail), topo.endpoint_of((node + 1) % topo.nodes, rail)


def nx_graph(topo: Topology) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_edges_from(
        (int(s), int(d), {"link": i})
        for i, (s, d) in enumerate(zip(topo.link_src, topo.link_dst, strict=True))
    )
    return g


Hop = tuple[int, int]


def nx_route(g: nx.DiGraph, src: IntArray, dst: IntArray, policy: str) -> list[dict[Hop, float]]:
    """Per flow: (vertex, vertex) hop -> weight, from networkx shortest paths."""
    out = []
    for f, (s, d) in enumerate(zip(src.tolist(), dst.tolist(), strict=True)):
        paths = list(nx.all_shortest_paths(g, s, d))
        links_of = [list(itertools.pairwise(p)) for p in paths]
        weights: dict[Hop, float] = {}
        if policy == "ecmp":
            for q in range(QPS):
                for link in links_of[hash((s, d, q, f)) % len(paths)]:
                    weights[link] = weights.get(link, 0.0) + 1.0 / QPS
        else:
            for links in links_of:
                for link in links:
                    weights[link] = weights.get(link, 0.0) + 1.0 / len(paths)
        out.append(weights)
    return out


def stratified_sample(topo: Topology, src: IntArray, dst: IntArray, size: int) -> dict[int, IntArray]:
    hops = topo.hops(src, dst)
    rng = np.random.default_rng(0)
    return {
        int(h): rng.choice(np.flatnonzero(hops == h), min(size, int((hops == h).sum())), replace=False)
        for h in np.unique(hops)
    }


def check_agreement(topo: Topology, g: nx.DiGraph, src: IntArray, dst: IntArray) -> None:
    """Adaptive weights per (vertex, vertex) hop must match on the sample (parallel cables summed).

    Raises:
        AssertionError: a flow's hops or weights differ.
    """
    ours = route(topo, src, dst, "adaptive").matrix.tocsr()
    theirs = nx_route(g, src, dst, "adaptive")
    for i, weights in enumerate(theirs):
        row = ours[i]
        mine: dict[Hop, float] = {}
        for link, w in zip(row.indices.tolist(), row.data.tolist(), strict=True):
            hop = (int(topo.link_src[link]), int(topo.link_dst[link]))
            mine[hop] = mine.get(hop, 0.0) + w
        same = mine.keys() == weights.keys() and all(abs(mine[k] - weights[k]) < 1e-9 for k in mine)
        assert same, f"flow {i}: fabrictwin and networkx disagree"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sample", type=int, default=50, help="networkx flows per path class")
    args = parser.parse_args()

    t_build, topo = median_time(lambda: build_fat_tree(NODES, RAILS, RADIX, LINK_BPS, tiers=3), args.repeat)
    src, dst = ring_flows(topo)
    t_ecmp, r_ecmp = median_time(lambda: route(topo, src, dst, "ecmp", qps=QPS, seed=1), args.repeat)
    t_ad, r_ad = median_time(lambda: route(topo, src, dst, "adaptive"), args.repeat)
    s = topo.size
    print(f"fabric: {topo.nodes * topo.rails:,} GPUs ({topo.nodes:,} nodes x {topo.rails} rails), "
          f"{s.tiers} tiers, k={s.radix}: {s.leaves} leaves, {s.spines} spines, {s.cores} cores, "
          f"{topo.n_links:,} directed links")  # fmt: skip
    hops = topo.hops(src, dst)
    counts = {int(h): int((hops == h).sum()) for h in np.unique(hops)}
    print(f"flows: {src.size:,} rail-ring neighbours; by hop count {counts}")
    print(f"fabrictwin build                      median {t_build * 1e3:8.1f} ms  ({args.repeat} runs)")
    print(f"fabrictwin ecmp (q={QPS})                 median {t_ecmp * 1e3:8.1f} ms  "
          f"({r_ecmp.matrix.shape[0]:,} subflows, nnz {r_ecmp.matrix.nnz:,})")  # fmt: skip
    print(f"fabrictwin adaptive                   median {t_ad * 1e3:8.1f} ms  (nnz {r_ad.matrix.nnz:,})")
    ours = t_build + t_ecmp + t_ad
    verdict = "met" if ours < 2 else "MISSED"
    print(f"fabrictwin build + ecmp + adaptive    {ours:.3f} s   (target < 2 s: {verdict})")

    t_nx_build, g = median_time(lambda: nx_graph(topo), 1)
    sample = stratified_sample(topo, src, dst, args.sample)
    extrapolated = {}
    for policy in ("ecmp", "adaptive"):
        total = 0.0
        for h, idx in sample.items():
            t, _ = median_time(lambda idx=idx, p=policy: nx_route(g, src[idx], dst[idx], p), 1)  # type: ignore[misc]
            total += t / idx.size * counts[h]
        extrapolated[policy] = total
    n_sampled = sum(i.size for i in sample.values())
    print(f"networkx build (DiGraph, same links)  {t_nx_build * 1e3:8.1f} ms  (1 run)")
    for policy, t in extrapolated.items():
        print(f"networkx {policy:<9} all_shortest_paths {t:8.2f} s   (sampled {n_sampled} flows "
              f"stratified by hop count, extrapolated to {src.size:,})")  # fmt: skip
    theirs = t_nx_build + sum(extrapolated.values())
    print(f"networkx build + ecmp + adaptive      {theirs:.2f} s")
    print(f"ratio networkx / fabrictwin           {theirs / ours:,.0f}x")
    check_idx = np.concatenate([i[:20] for i in sample.values()])
    check_agreement(topo, g, src[check_idx], dst[check_idx])
    print(f"agreement: adaptive link weights identical on {check_idx.size} checked flows")


if __name__ == "__main__":
    main()
