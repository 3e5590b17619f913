"""The Perfetto trace of `simulate`, and the `simulate` / `compare` commands."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fabrictwin.cli.main import app
from fabrictwin.report.trace import trace_events
from fabrictwin.twin.simulate import simulate

SCENARIO = """\
name: cli-test
cluster: {system: dgx-h100, nodes: 2, fabric: ib-ndr}
job: {model: bert-large, global_batch: 256, samples_to_train: 1e5, seq_len: 256}
"""


def _check_trace_event_format(obj: dict[str, Any]) -> None:
    """The rules of the Trace Event Format's JSON object form that Perfetto's importer relies on."""
    assert isinstance(obj["traceEvents"], list) and obj["traceEvents"]
    named: set[tuple[int, int]] = set()
    for ev in obj["traceEvents"]:
        assert ev["ph"] in ("X", "M")
        assert isinstance(ev["pid"], int) and isinstance(ev["tid"], int)
        if ev["ph"] == "M":
            assert ev["name"] in ("process_name", "thread_name") and isinstance(ev["args"]["name"], str)
            if ev["name"] == "thread_name":
                named.add((ev["pid"], ev["tid"]))
        else:
            assert isinstance(ev["name"], str) and isinstance(ev["cat"], str)
            assert ev["ts"] >= 0 and ev["dur"] >= 0
            assert (ev["pid"], ev["tid"]) in named


def test_the_step_trace_is_valid_trace_event_json(make_scenario: Any) -> None:
    r = simulate(make_scenario(cluster={"nodes": 8}, parallelism={}))
    obj = json.loads(json.dumps(trace_events(r.trace_spans())))
    _check_trace_event_format(obj)
    ends = [ev["ts"] + ev["dur"] for ev in obj["traceEvents"] if ev["ph"] == "X"]
    # GPU streams end at the simulated step; the host track adds the waits that follow it.
    assert max(ends) == pytest.approx(r.step_time_s * 1e6)
    assert any(ev["cat"] == "straggler_wait" for ev in obj["traceEvents"] if ev["ph"] == "X")


def test_the_trace_loads_in_perfetto_trace_processor_when_a_binary_is_given(
    tmp_path: Path, make_scenario: Any
) -> None:
    # The perfetto package downloads its trace_processor binary on first use; this machine has no
    # network, so the check runs only when FABRICTWIN_TRACE_PROCESSOR names a local binary.
    binary = os.environ.get("FABRICTWIN_TRACE_PROCESSOR")
    if not binary:
        pytest.skip("set FABRICTWIN_TRACE_PROCESSOR to a trace_processor_shell binary to run")
    from perfetto.trace_processor import TraceProcessor, TraceProcessorConfig

    path = tmp_path / "t.json"
    path.write_text(json.dumps(trace_events(simulate(make_scenario()).timeline.spans)))
    tp = TraceProcessor(trace=str(path), config=TraceProcessorConfig(bin_path=binary))
    count = tp.query("select count(*) as n from slice").as_pandas_dataframe()["n"][0]
    tp.close()
    assert count > 0


def test_simulate_json_prints_the_documented_keys_and_writes_report_and_trace(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO)
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["simulate", str(path), "--json", "--out", str(out)])
    assert res.exit_code == 0, res.output
    obj = json.loads(res.output)
    assert set(obj) >= {
        "step_time_s",
        "time_to_train_s",
        "gpu_busy_fraction",
        "mfu",
        "breakdown_s",
        "bottleneck",
    }
    assert (out / "s.html").stat().st_size > 0
    _check_trace_event_format(json.loads((out / "s.trace.json").read_text()))


def test_compare_json_lists_each_design_with_its_varied_values(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO)
    res = CliRunner().invoke(
        app, ["compare", str(path), "--vary", "fabric=tcp-100g,ib-ndr", "--json", "--out", str(tmp_path)]
    )
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    assert [r["varied"] for r in rows] == [{"fabric": "tcp-100g"}, {"fabric": "ib-ndr"}]
    assert rows[1]["step_ratio_vs_first"] < 1.0


def test_a_typo_in_the_scenario_exits_2_with_the_location(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "bad.yaml"
    path.write_text(SCENARIO.replace("fabric:", "fabrik:"))
    proc = subprocess.run(
        [sys.executable, "-c", "from fabrictwin.cli.main import main; main()", "simulate", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "bad.yaml:2" in proc.stderr and "fabrik" in proc.stderr


def test_the_demo_writes_the_claims_report(tmp_path: Path) -> None:
    from fabrictwin import demo

    report = demo.main(tmp_path / "claims")
    text = report.read_text()
    for needle in (
        "resnet50 on dgx-h100: seed claims 6.5 h -> 4.2 h",
        "bert-large on dgx-a100",
        "ib-hdr x8 + SHARP",
        "## DPU offload",
        "ib-ndr x8 + SHARP",
    ):
        assert needle in text
    assert (tmp_path / "claims" / "resnet50-ib-ndr.trace.json").exists()
