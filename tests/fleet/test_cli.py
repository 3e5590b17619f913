"""The fleet CLI: plan prints waves and bounds and draws a Gantt PNG; errors exit 2 without a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from fabrictwin.cli.main import app

DATA = Path(__file__).parent / "data"


def test_rollout_plan_prints_a_wave_table_and_writes_a_gantt_png(tmp_path: Path) -> None:
    png = tmp_path / "plan.png"
    result = CliRunner().invoke(
        app,
        [
            "fleet",
            "rollout",
            "plan",
            str(DATA / "rollout.yaml"),
            "--fleet",
            str(DATA / "fleet64.yaml"),
            "--gantt",
            str(png),
            "--store",
            f"sqlite:///{tmp_path / 'f.db'}",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "predicted makespan" in result.output and "lower bound" in result.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_fleet_command_group_lists_its_commands() -> None:
    result = CliRunner().invoke(app, ["fleet", "--help"])
    for command in ("discover", "inventory", "rollout", "mode"):
        assert command in result.output
    result = CliRunner().invoke(app, ["fleet", "rollout", "--help"])
    for command in ("plan", "run", "status", "resume"):
        assert command in result.output


def test_status_of_an_unknown_rollout_exits_2_naming_it(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "fabrictwin",
            "fleet",
            "rollout",
            "status",
            "nope",
            "--store",
            f"sqlite:///{tmp_path / 'f.db'}",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "no rollout named 'nope'" in proc.stderr and "Traceback" not in proc.stderr


def test_a_typo_in_the_rollout_yaml_is_located(tmp_path: Path) -> None:
    bad = tmp_path / "r.yaml"
    bad.write_text((DATA / "rollout.yaml").read_text().replace("failure_budget", "failure_budgt"))
    result = CliRunner().invoke(
        app, ["fleet", "rollout", "plan", str(bad), "--fleet", str(DATA / "fleet64.yaml")]
    )
    assert result.exit_code != 0
    assert "failure_budgt" in str(result.exception)
