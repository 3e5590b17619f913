"""``fabrictwin sweep``: JSON, table, CSV and plot files, executors, errors without traceback."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from fabrictwin.cli.main import app, main

runner = CliRunner(env={"COLUMNS": "160"})


@pytest.fixture
def space(tmp_path: Path, base_data: dict[str, object]) -> Path:
    (tmp_path / "base.yaml").write_text(yaml.safe_dump(base_data))
    path = tmp_path / "space.yaml"
    path.write_text(
        "name: bert-fabrics\nbase: base.yaml\naxes:\n  fabric: [ib-ndr, tcp-100g]\n  nodes: [3, 4, 8]\n"
    )
    return path


def test_json_lists_every_point_with_its_values_and_marks_the_front(space: Path) -> None:
    result = runner.invoke(app, ["sweep", str(space), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["sweep"] == "bert-fabrics" and data["axes"] == ["fabric", "nodes"]
    points = data["points"]
    assert [(p["values"]["fabric"], p["values"]["nodes"]) for p in points] == [
        ("ib-ndr", 3),
        ("ib-ndr", 4),
        ("ib-ndr", 8),
        ("tcp-100g", 3),
        ("tcp-100g", 4),
        ("tcp-100g", 8),
    ]
    assert points[0]["error"].startswith("Infeasible: global batch 256")
    assert all(p["time_to_train_s"] > 0 for p in points if p["error"] is None)
    assert [p["index"] for p in points if p["pareto"]] == sorted(data["pareto"])
    # InfiniBand beats TCP at the same size on both time and cost: no TCP design is on the front
    assert all(points[i]["values"]["fabric"] == "ib-ndr" for i in data["pareto"])
    assert data["best"]["time_to_train"] == 2  # ib-ndr on 8 nodes


def test_the_table_is_sorted_by_time_and_lists_the_designs_that_did_not_run(space: Path) -> None:
    result = runner.invoke(app, ["sweep", str(space)])
    assert result.exit_code == 0, result.output
    rows = [ln for ln in result.output.splitlines() if "ib-ndr" in ln or "tcp-100g" in ln]
    assert rows[0].split("│")[2].strip() == "ib-ndr" and rows[0].split("│")[3].strip() == "8"
    assert rows[0].split("│")[1].strip() == "*"
    assert "best time_to_train: fabric=ib-ndr nodes=8" in result.output
    assert "did not run fabric=tcp-100g nodes=3: Infeasible" in result.output


def test_csv_and_plot_files_are_written(space: Path, tmp_path: Path) -> None:
    out_csv, out_png = tmp_path / "s.csv", tmp_path / "s.png"
    result = runner.invoke(
        app, ["sweep", str(space), "--csv", str(out_csv), "--plot", str(out_png), "--json"]
    )
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(out_csv.open()))
    assert len(rows) == 6 and rows[2]["fabric"] == "ib-ndr" and rows[2]["nodes"] == "8"
    assert rows[0]["error"].startswith("Infeasible") and rows[0]["time_to_train_s"] == ""
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_dask_executor_prints_the_same_json_as_local(space: Path) -> None:
    local = runner.invoke(app, ["sweep", str(space), "--json"])
    dask = runner.invoke(app, ["sweep", str(space), "--json", "--executor", "dask"])
    assert dask.exit_code == 0, dask.output
    assert json.loads(dask.output) == json.loads(local.output)


def _run_main(monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    monkeypatch.setattr(sys, "argv", ["fabrictwin", *args])
    with pytest.raises(SystemExit) as exit_info:
        main()
    return int(exit_info.value.code or 0)


def test_a_bad_axis_exits_2_with_the_located_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "space.yaml"
    path.write_text("base: base.yaml\naxes:\n  fabirc: [ib-ndr]\n")
    assert _run_main(monkeypatch, "sweep", str(path)) == 2
    err = capsys.readouterr().err
    assert "space.yaml:3 axes.fabirc:" in err and "did you mean 'fabric'" in err
    assert "Traceback" not in err


def test_ray_without_ray_installed_exits_2_naming_the_extra(
    space: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    assert _run_main(monkeypatch, "sweep", str(space), "--ray", "auto") == 2
    assert "pip install 'fabrictwin[ray]'" in capsys.readouterr().err
