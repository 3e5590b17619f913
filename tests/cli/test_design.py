"""``fabrictwin design``: JSON keys and figures, CSV, picture, errors without traceback (exit 2)."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabrictwin.cli.main import app, main

runner = CliRunner()


def run_main(monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    monkeypatch.setattr(sys, "argv", ["fabrictwin", *args])
    with pytest.raises(SystemExit) as exit_info:
        main()
    return int(exit_info.value.code or 0)


def test_json_for_64_ndr_nodes_gives_2_tiers_16_leaves_8_spines_and_512_plus_512_links() -> None:
    result = runner.invoke(
        app, ["design", "--nodes", "64", "--gpus-per-node", "8", "--fabric", "ib-ndr", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert set(data) == {"nodes", "gpus", "compute", "storage", "oob", "nics_per_node", "bom"}
    c = data["compute"]
    assert (c["tiers"], c["leaf_switches"], c["spine_switches"], c["core_switches"]) == (2, 16, 8, 0)
    assert (c["node_links"], c["leaf_spine_links"], c["spine_core_links"]) == (512, 512, 0)
    assert c["switch_model"] == "qm9700"
    assert data["gpus"] == 512


@pytest.mark.parametrize("fabric", ["roce-400g", "spectrum-x-400g", "ib-xdr"])
def test_every_named_fabric_designs_and_renders_a_table(fabric: str) -> None:
    result = runner.invoke(app, ["design", "--nodes", "64", "--fabric", fabric], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    assert "Adapters per node" in result.output and "Bill of materials" in result.output
    assert "Why:" in result.output


def test_csv_and_picture_are_written(tmp_path: Path) -> None:
    csv_path, png, svg = tmp_path / "bom.csv", tmp_path / "fabric.png", tmp_path / "big.svg"
    args = ["design", "--nodes", "64", "--csv", str(csv_path), "--picture", str(png), "--json"]
    assert runner.invoke(app, args).exit_code == 0
    rows = list(csv.DictReader(csv_path.open(encoding="utf-8")))
    assert rows[0]["network"] == "compute" and rows[0]["quantity"] == "24"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    big = runner.invoke(app, ["design", "--nodes", "2048", "--picture", str(svg), "--json"])
    assert big.exit_code == 0
    assert svg.read_text(encoding="utf-8").count("<svg") == 1


def test_an_infeasible_design_prints_the_reason_without_traceback_and_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_main(monkeypatch, "design", "--nodes", "2048", "--tiers", "2")
    err = capsys.readouterr().err
    assert code == 2
    assert "2-tier fat tree of radix 64" in err and "nearest feasible: tiers 3" in err
    assert "Traceback" not in err


def test_an_unknown_fabric_suggests_the_closest_id(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_main(monkeypatch, "design", "--nodes", "64", "--fabric", "ib-ndrr")
    assert code == 2
    assert "ib-ndr" in capsys.readouterr().err


def test_a_bad_picture_suffix_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert run_main(monkeypatch, "design", "--nodes", "8", "--picture", str(tmp_path / "x.gif")) == 2
