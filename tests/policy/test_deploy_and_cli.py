"""Nothing is deployed from a policy that fails ``check``; the CLI renders check and trace."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabrictwin.cli.main import app
from fabrictwin.errors import Infeasible
from fabrictwin.fleet.policy import deploy_policy, snap_plan
from fabrictwin.spec.policy import PolicySpec

from .conftest import EXAMPLES  # type: ignore[import-not-found]


def test_a_passing_policy_deploys_flows_and_snap_plans_per_server(cloud: PolicySpec, tmp_path: Path) -> None:
    result = deploy_policy(cloud, tmp_path)
    names = sorted(p.name for p in result.files)
    assert names == [
        "gpu-01.flows",
        "gpu-01.snap.txt",
        "gpu-02.flows",
        "gpu-03.flows",
        "gpu-03.snap.txt",
        "login-01.flows",
    ]
    snap = (tmp_path / "gpu-01.snap.txt").read_text()
    assert "nvme controller on pf0vf1 -> tenant-a/trainer-1: 4 TiB" in snap and "AES-XTS" in snap
    assert "controlled_by=host" in (tmp_path / "login-01.flows").read_text()


def test_a_policy_that_fails_check_writes_nothing(small: PolicySpec, tmp_path: Path) -> None:
    data = small.model_dump()
    data["grants"] = []
    out = tmp_path / "out"
    with pytest.raises(Infeasible, match=r"failed check with 1 error.*nothing deployed: leak"):
        deploy_policy(PolicySpec.model_validate(data), out)
    assert not out.exists()


def test_snap_plan_gives_each_volume_to_its_vms_function(cloud: PolicySpec) -> None:
    plan = {d.volume: (d.server, d.function) for d in snap_plan(cloud)}
    assert plan == {"tenant-a/ckpt": ("gpu-01", "pf0vf1"), "tenant-b/pgdata": ("gpu-03", "pf0vf0")}


def test_cli_check_passes_on_the_example_and_prints_the_trust_picture() -> None:
    result = CliRunner().invoke(
        app, ["policy", "check", str(EXAMPLES / "cloud.yaml")], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    assert "PASS" in result.output and "login-01 (nic mode, pipeline controlled by host)" in result.output
    assert "gpu-01, gpu-02, gpu-03 (dpu mode, pipeline controlled by provider)" in result.output


def test_cli_check_exits_1_and_shows_the_leak_path(tmp_path: Path) -> None:
    text = (
        (EXAMPLES / "cloud.yaml")
        .read_text()
        .replace(
            "{direction: ingress, action: deny, protocol: any, remote: 10.2.0.0/16,",
            "{direction: ingress, action: deny, protocol: any, remote: 10.3.0.0/16,",
        )
    )
    bad = tmp_path / "leak.yaml"
    bad.write_text(text)
    result = CliRunner().invoke(app, ["policy", "check", str(bad)], env={"COLUMNS": "200"})
    assert result.exit_code == 1
    assert "FAIL" in result.output and "tenant-b/db-1 -> tenant-a/web-1" in result.output
    assert "via gpu-01 t50: tenant-a/sg:web rule 1 (allow ingress tcp 443 from 0.0.0.0/0" in result.output


def test_cli_trace_prints_every_hop_and_the_reply() -> None:
    args = [
        "policy",
        "trace",
        str(EXAMPLES / "cloud.yaml"),
        "--from",
        "vm:tenant-a/web-1",
        "--to",
        "10.2.0.5:5432/tcp",
    ]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "16. vm tenant-b/db-1 eth0: receives" in result.output
    assert "outcome: delivered to tenant-b/db-1" in result.output
    assert "reply (conntrack: established)" in result.output


def test_the_leak_example_fails_check() -> None:
    result = CliRunner().invoke(app, ["policy", "check", str(EXAMPLES / "leak.yaml")], env={"COLUMNS": "200"})
    assert result.exit_code == 1 and "leak" in result.output


def test_cli_trace_output_matches_the_golden_text_at_120_columns() -> None:
    args = [
        "policy",
        "trace",
        str(EXAMPLES / "cloud.yaml"),
        "--from",
        "vm:tenant-a/web-1",
        "--to",
        "10.2.0.5:5432/tcp",
    ]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "120"})
    golden = (Path(__file__).parent / "golden" / "trace-web1-db1-5432.txt").read_text()
    assert result.output == golden


def test_cli_show_prints_one_servers_tables_and_its_snap_devices() -> None:
    args = ["policy", "show", str(EXAMPLES / "cloud.yaml"), "--server", "gpu-03"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert result.output.startswith("# server gpu-03 mode=dpu controlled_by=provider")
    assert "# server gpu-01" not in result.output
    assert "# snap tenant-b/pgdata: virtio-blk controller on pf0vf0 -> tenant-b/db-1: 2 TiB" in result.output
