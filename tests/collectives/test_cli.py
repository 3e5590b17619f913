"""``fabrictwin collective``: nccl-tests-style table and JSON rows."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from fabrictwin.cli.collective import parse_size, sizes_between
from fabrictwin.cli.main import app
from fabrictwin.errors import SpecError

runner = CliRunner()


def test_sizes_follow_nccl_tests_notation():
    assert parse_size("8") == 8 and parse_size("1M") == 2**20 and parse_size("8G") == 8 * 2**30
    assert parse_size("64MiB") == 64 * 2**20
    assert sizes_between(8, 64, 2).tolist() == [8, 16, 32, 64]
    with pytest.raises(SpecError):
        parse_size("lots")
    with pytest.raises(SpecError):
        sizes_between(8, 4, 2)


def test_json_rows_carry_the_documented_keys():
    args = "collective --op all_reduce --gpus 256 --system dgx-h100 --fabric ib-ndr"
    args += " --minbytes 1M --maxbytes 1G --stepfactor 1024 --json"
    result = runner.invoke(app, args.split())
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert [r["bytes"] for r in rows] == [2**20, 2**30]
    assert set(rows[0]) == {"bytes", "time_us", "algbw_GBps", "busbw_GBps", "algorithm", "protocol"}
    assert rows[1]["busbw_GBps"] > rows[0]["busbw_GBps"] > 0


def test_the_table_shows_every_nccl_tests_column_and_flow_fidelity_runs():
    result = runner.invoke(
        app, ["collective", "--nodes", "4", "--fabric", "roce-400g", "--fidelity", "flow", "--algo", "ring",
              "--minbytes", "8", "--maxbytes", "64", "--stepfactor", "8"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    for column in ("size", "count", "type", "time_us", "algbw_GBps", "busbw_GBps", "algo/proto", "ring/ll"):
        assert column in result.output


def test_an_impossible_request_exits_with_status_2_and_no_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "fabrictwin", "collective", "--gpus", "16", "--fabric", "roce-400g", "--sharp",
         "--algo", "sharp", "--maxbytes", "1M"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "InfiniBand" in proc.stderr and "Traceback" not in proc.stderr


def test_fewer_gpus_than_a_server_holds_run_on_one_node():
    result = runner.invoke(
        app,
        [
            "collective",
            "--gpus",
            "5",
            "--system",
            "dgx-h200",
            "--minbytes",
            "8G",
            "--maxbytes",
            "8G",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    row = json.loads(result.output)[0]
    # 5 x H200 with NVLS measures 414.2 GB/s busbw
    assert row["algorithm"] == "nvls" and abs(row["busbw_GBps"] / 414.2 - 1) < 0.05
    single = runner.invoke(
        app, ["collective", "--gpus", "8", "--fidelity", "flow", "--maxbytes", "1M", "--json"]
    )
    assert single.exit_code == 0, single.output


def test_nccl_version_selects_that_releases_tuner():
    # tests/collectives/test_tuner_versions.py: on one H100 node at 1 MiB NCCL 2.18 picks NVLS,
    # a current release ring/LL; the option must reach the tuner.
    args = ["collective", "--gpus", "8", "--minbytes", "1M", "--maxbytes", "1M", "--json"]
    current = json.loads(runner.invoke(app, args).output)
    old = runner.invoke(app, [*args, "--nccl-version", "2.18.5"])
    assert old.exit_code == 0, old.output
    assert current[0]["algorithm"] == "ring" and json.loads(old.output)[0]["algorithm"] == "nvls"


def test_a_malformed_nccl_version_is_a_spec_error():
    result = runner.invoke(app, ["collective", "--gpus", "8", "--maxbytes", "1M", "--nccl-version", "two"])
    assert result.exit_code != 0 and isinstance(result.exception, SpecError)


def test_gpus_per_thread_is_nccl_tests_g_and_sets_the_small_size_floor():
    args = ["collective", "--gpus", "8", "--system", "dgx-a100", "--maxbytes", "8", "--json"]
    one = json.loads(runner.invoke(app, args).output)[0]["time_us"]
    result = runner.invoke(app, [*args, "-g", "8"])
    assert result.exit_code == 0, result.output
    eight = json.loads(result.output)[0]["time_us"]
    assert eight == pytest.approx(8 * 5.43, rel=0.01) and one < eight / 2
