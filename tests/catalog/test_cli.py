"""``fabrictwin catalog``: list, show, check; errors print without a traceback and exit 2."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabrictwin.cli.catalog import human
from fabrictwin.cli.main import app, main

runner = CliRunner(env={"COLUMNS": "120"})


def run_main(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str]:
    monkeypatch.setattr(sys, "argv", ["fabrictwin", *args])
    with pytest.raises(SystemExit) as exit_info:
        main()
    captured = capsys.readouterr()
    return int(exit_info.value.code or 0), captured.out + captured.err


def test_list_of_one_kind_shows_every_id_of_that_kind() -> None:
    result = runner.invoke(app, ["catalog", "list", "system"])
    assert result.exit_code == 0, result.output
    for system_id in (
        "dgx-1-v100",
        "dgx-a100",
        "dgx-h100",
        "dgx-h200",
        "dgx-b200",
        "pcie-8gpu",
        "gb200-nvl72",
    ):
        assert system_id in result.output


def test_show_renders_human_units_and_the_sources() -> None:
    result = runner.invoke(app, ["catalog", "show", "h100-sxm"])
    assert result.exit_code == 0, result.output
    assert "bf16 989.5 TFLOP/s" in result.output
    assert "3350 GB/s" in result.output and "80 GiB" in result.output
    assert "nvidia-tensor-core-gpu-datasheet" in result.output


def test_show_json_gives_si_numbers_and_the_kind() -> None:
    result = runner.invoke(app, ["catalog", "show", "ib-ndr", "--json"])
    data = json.loads(result.output)
    assert (data["kind"], data["link_bps"], data["switch"]) == ("fabric", 400e9, "qm9700")


def test_show_an_unknown_id_suggests_and_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, output = run_main(monkeypatch, capsys, "catalog", "show", "qm970")
    assert code == 2
    assert "'qm970' is not in the catalog; did you mean 'qm9700'?" in output
    assert "Traceback" not in output


def test_check_accepts_a_good_cluster_file(tmp_path: Path) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text("system: dgx-h100\nnodes: 64\nfabric:\n  compute:\n    link: ib-ndr\n", encoding="utf-8")
    result = runner.invoke(app, ["catalog", "check", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"{path}: ok - 64 x dgx-h100 on ib-ndr"


def test_check_reports_a_bad_cluster_file_with_its_line_and_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text("system: dgx-h100\nnodes: 64\nfabric:\n  compute:\n    link: ib-ndrr\n", encoding="utf-8")
    code, output = run_main(monkeypatch, capsys, "catalog", "check", str(path))
    assert code == 2
    assert f"{path}:5 fabric.compute.link: 'ib-ndrr' is not a known link; did you mean 'ib-ndr'?" in output


@pytest.mark.parametrize(
    ("field", "value", "shown"),
    [
        ("hbm_Bps", 3.35e12, "3350 GB/s"),
        ("link_bps", 400e9, "400 Gb/s"),
        ("hbm_bytes", 80 * 2**30, "80 GiB"),
        ("latency_s", 1.8e-6, "1.8 us"),
        ("power_w", 10200.0, "10.2 kW"),
        ("tdp_w", 700.0, "700 W"),
        ("base_hz", 2.1e9, "2.1 GHz"),
        ("ports", 64, "64"),
        ("sharp", True, "True"),
    ],
)
def test_human_units_for_display(field: str, value: object, shown: str) -> None:
    assert human(field, value) == shown
