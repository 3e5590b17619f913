"""Expert and interleaved parallelism through the facade, DPU vs SuperNIC, and the renderers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from fabrictwin import catalog
from fabrictwin.errors import SpecError
from fabrictwin.node.cpu import HostServices, NodeLoad, cpu_budget
from fabrictwin.report.console import breakdown_table, comparison_table, summary_table
from fabrictwin.report.html import comparison_report, scenario_report
from fabrictwin.twin.compare import compare, parse_vary
from fabrictwin.twin.simulate import simulate

MIXTRAL = {"model": "mixtral-8x7b", "global_batch": 64, "samples_to_train": 1e5, "seq_len": 4096}


def test_mixture_of_experts_pays_all_to_all_on_the_critical_path(make_scenario: Any) -> None:
    sc = make_scenario(
        cluster={"nodes": 8},
        job=MIXTRAL,
        parallelism={"tp": 4, "ep": 8, "zero_stage": 1, "recompute": "full"},
    )
    r = simulate(sc)
    assert r.breakdown_s["comm:ep_all_to_all"] > 0
    assert r.breakdown_s["comm:tp_all_reduce"] > 0
    assert "comm:dp_reduce_scatter" in {s.category for s in r.timeline.spans}


def test_expert_parallel_must_divide_data_parallel(make_scenario: Any) -> None:
    from fabrictwin.errors import Infeasible

    with pytest.raises(Infeasible, match="expert parallel"):
        simulate(make_scenario(cluster={"nodes": 8}, job=MIXTRAL, parallelism={"tp": 4, "ep": 3}))


def test_interleaving_shortens_a_bubble_bound_gpt3_step(make_scenario: Any) -> None:
    base = {
        "cluster": {"nodes": 128},
        "job": {"model": "gpt3-175b", "global_batch": 512, "samples_to_train": 1e6},
    }
    plain = simulate(make_scenario(**base, parallelism={"tp": 8, "pp": 16, "microbatch_size": 1}))
    inter = simulate(
        make_scenario(
            **base,
            parallelism={
                "tp": 8,
                "pp": 16,
                "microbatch_size": 1,
                "schedule": "interleaved",
                "virtual_stages": 2,
            },
        )
    )
    assert inter.breakdown_s["pipeline_bubble"] < 0.7 * plain.breakdown_s["pipeline_bubble"]
    assert inter.step_time_s < plain.step_time_s
    # ... at the price of more activations in flight: (2*15 + 16 + 1) / 2 = 23.5 vs 16 micro-batches.
    assert inter.memory.activations / plain.memory.activations == pytest.approx(23.5 / 16)


def test_a_supernic_in_nic_mode_offloads_nothing() -> None:
    load = NodeLoad(0, 0, 5e9, 5e9)
    svc = HostServices(True, True, True, True, "nfs", False)
    kw: dict[str, Any] = dict(
        cpu=catalog.cpu("xeon-8480c"),
        sockets=2,
        gpus=8,
        load=load,
        services=svc,
        offloads=("vswitch", "storage", "crypto", "firewall", "telemetry"),
    )
    plain = cpu_budget(dpu=None, **kw)
    supernic = cpu_budget(dpu=catalog.nic("bf3-b3140h"), **kw)
    assert supernic.host_demand == plain.host_demand
    assert supernic.dpu_demand == {}


def test_a_bad_vary_argument_names_itself() -> None:
    with pytest.raises(SpecError, match="KEY=VALUE"):
        parse_vary(["fabric"])


def test_a_varied_value_that_does_not_validate_is_a_spec_error(make_scenario: Any) -> None:
    with pytest.raises(SpecError, match="nodes"):
        compare(make_scenario(), parse_vary(["nodes=many"]))


def test_tables_render_every_breakdown_component(make_scenario: Any) -> None:
    r = simulate(make_scenario())
    console = Console(width=120, record=True)
    console.print(breakdown_table(r))
    console.print(summary_table(r))
    text = console.export_text()
    for key, sec in r.breakdown_s.items():
        if sec > 0:
            assert key in text
    assert "time to train" in text and "bottleneck" in text


def test_reports_embed_the_plot_and_the_resolved_scenario(tmp_path: Path, make_scenario: Any) -> None:
    r = simulate(make_scenario())
    page = scenario_report(r, tmp_path / "r.html", "t.json").read_text()
    assert "plotly" in page and "&quot;model&quot;: &quot;resnet50&quot;" in page and "t.json" in page
    rows = compare(make_scenario(), parse_vary(["fabric=tcp-100g,ib-ndr"]))
    cmp_page = comparison_report(rows, tmp_path / "c.html").read_text()
    assert "Time to train" in cmp_page and "tcp-100g" in cmp_page
    console = Console(width=160, record=True)
    console.print(comparison_table(rows))
    assert "moved" in console.export_text() or rows[0].result.bottleneck == rows[1].result.bottleneck


def test_expert_parallel_ranks_hold_shared_weights_and_their_share_of_experts() -> None:
    from fabrictwin.twin.resolve import profile

    w = profile(catalog.model("mixtral-8x7b"))
    expert = (w.params - w.active_params) / (w.experts - w.top_k)
    shared = w.active_params - w.top_k * expert
    assert w.params_per_ep_rank(1) == w.params
    assert w.params_per_ep_rank(8) == pytest.approx(shared + expert)
    assert shared + w.experts * expert == pytest.approx(w.params)
