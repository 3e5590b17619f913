"""The facade: scenario in, breakdown / time to train / bottleneck out."""

from __future__ import annotations

from typing import Any

import pytest

from fabrictwin.errors import Infeasible, NotFound
from fabrictwin.twin.compare import compare, comparison_json, parse_vary
from fabrictwin.twin.simulate import simulate

JSON_KEYS = {"step_time_s", "time_to_train_s", "gpu_busy_fraction", "mfu", "breakdown_s", "bottleneck"}


def test_the_json_result_has_the_documented_keys_and_a_consistent_breakdown(make_scenario: Any) -> None:
    r = simulate(make_scenario())
    obj = r.to_json()
    assert set(obj) >= JSON_KEYS
    assert sum(obj["breakdown_s"].values()) == pytest.approx(obj["step_time_s"], rel=1e-9)
    assert 0 < obj["gpu_busy_fraction"] <= 1 and 0 < obj["mfu"] < 1
    steps = 1.28e6 / 1024
    assert obj["time_to_train_s"] >= steps * obj["step_time_s"]


def test_the_same_scenario_gives_the_same_result(make_scenario: Any) -> None:
    assert simulate(make_scenario()).to_json() == simulate(make_scenario()).to_json()


def test_a_batch_that_does_not_split_over_data_parallel_ranks_is_infeasible(make_scenario: Any) -> None:
    with pytest.raises(Infeasible, match="not divisible"):
        simulate(make_scenario(job={"global_batch": 1000}))


def test_gpt3_on_one_server_does_not_fit(make_scenario: Any) -> None:
    sc = make_scenario(cluster={"nodes": 1}, job={"model": "gpt3-175b", "global_batch": 8})
    with pytest.raises(Infeasible, match="does not fit in GPU memory"):
        simulate(sc)


def test_an_unknown_model_names_the_closest_ids(make_scenario: Any) -> None:
    with pytest.raises(NotFound, match="gpt3-175b"):
        simulate(make_scenario(job={"model": "gpt3-175"}))


def test_tcp_ethernet_exposes_more_communication_than_infiniband(make_scenario: Any) -> None:
    job = {"model": "bert-large", "global_batch": 256, "seq_len": 256}
    ib = simulate(make_scenario(job=job))
    tcp = simulate(make_scenario(job=job, cluster={"fabric": "tcp-100g", "nics_per_node": 1}))
    assert tcp.step_time_s > 1.5 * ib.step_time_s
    assert tcp.bottleneck == "exposed_communication"
    assert tcp.cpu.host_demand["network"] > 0 == ib.cpu.host_demand["network"]


def test_sharp_shortens_the_gradient_all_reduce(make_scenario: Any) -> None:
    job = {"model": "bert-large", "global_batch": 256, "seq_len": 256}
    plain = simulate(make_scenario(job=job, cluster={"nodes": 16}))
    sharp = simulate(make_scenario(job=job, cluster={"nodes": 16, "sharp": True}))
    assert sharp.breakdown_s["comm:dp_all_reduce"] < plain.breakdown_s["comm:dp_all_reduce"]


def test_cpu_image_decode_starves_the_gpus_and_is_called_a_data_stall(make_scenario: Any) -> None:
    r = simulate(make_scenario(data={"decode_on_gpu": False}))
    assert r.breakdown_s["data_stall"] > 0
    assert r.bottleneck == "data_stall"
    assert any("decode" in n for n in r.notes)


def test_a_dpu_moves_infrastructure_work_off_a_busy_host(make_scenario: Any) -> None:
    host = {"vswitch": True, "encryption": True, "firewall": True}
    data = {"cache_hit_rate": 0.0}
    plain = simulate(make_scenario(host=host, data=data))
    dpu = simulate(make_scenario(host=host, data=data, cluster={"dpu": "bluefield-3"}))
    assert dpu.cpu.infra_cores < plain.cpu.infra_cores
    assert dpu.breakdown_s["straggler_wait"] < plain.breakdown_s["straggler_wait"]


def test_pipeline_parallel_gpt3_reports_bubble_and_all_parallel_collectives(make_scenario: Any) -> None:
    sc = make_scenario(
        cluster={"nodes": 64},
        job={"model": "gpt3-175b", "global_batch": 256, "samples_to_train": 1e6},
        parallelism={"tp": 8, "pp": 8, "microbatch_size": 1, "recompute": "selective"},
    )
    r = simulate(sc)
    for key in ("pipeline_bubble", "comm:tp_all_reduce", "comm:dp_all_reduce"):
        assert r.breakdown_s[key] > 0
    assert r.layout.dp == 8 and r.layout.microbatches == 32


def test_compare_varies_every_combination_and_reports_ratios(make_scenario: Any) -> None:
    rows = compare(make_scenario(), parse_vary(["fabric=tcp-100g,ib-ndr", "dpu=none,bluefield-3"]))
    assert [r.varied for r in rows][:2] == [
        {"fabric": "tcp-100g", "dpu": "none"},
        {"fabric": "tcp-100g", "dpu": "bluefield-3"},
    ]
    objs = comparison_json(rows)
    assert len(objs) == 4 and objs[0]["step_ratio_vs_first"] == 1.0
    assert all(set(o) >= JSON_KEYS for o in objs)
