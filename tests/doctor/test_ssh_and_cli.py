"""``--ssh`` runs the commands through the ssh binary (tested with a fake runner); the CLI renders."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabrictwin.cli.main import app
from fabrictwin.fleet.doctor import diagnose, from_ssh
from fabrictwin.fleet.doctor.views import SSH_COMMANDS

SAMPLES = Path(__file__).parent / "samples"


class FakeHost:
    """Answers each command from a sample folder; records every argv."""

    def __init__(self, folder: str, fail: bool = False) -> None:
        self.folder = SAMPLES / folder
        self.fail = fail
        self.calls: list[list[str]] = []

    def __call__(self, argv: list[str]) -> tuple[int, str]:
        self.calls.append(argv)
        if self.fail:
            return 255, "ssh: connect to host gpu-01 port 22: Connection refused"
        command = argv[argv.index("--") + 1]
        view = next(
            name
            for name, tmpl in SSH_COMMANDS.items()
            if tmpl.split()[0] == command.split()[0] and (name != "mlxconfig-q" or " q" in command)
        )
        path = self.folder / f"{view}.txt"
        return (0, path.read_text()) if path.exists() else (1, f"{command.split()[0]}: command not found")


def test_ssh_runs_mst_first_and_fills_in_the_device_it_found() -> None:
    host = FakeHost("row1-mode-staged")
    views = from_ssh("root@gpu-01", runner=host)
    assert host.calls[0] == [
        "ssh",
        "-o",
        "BatchMode=yes",
        "-o",
        "ConnectTimeout=10",
        "root@gpu-01",
        "--",
        "mst status -v",
    ]
    commands = [c[-1] for c in host.calls]
    assert "mlxconfig -d /dev/mst/mt41692_pciconf0 q" in commands
    assert "devlink dev eswitch show pci/0000:e2:00.0" in commands
    assert "flint -d /dev/mst/mt41692_pciconf0 q" in commands
    result = diagnose(views)
    assert result.first is not None and result.first.cause == "mode-staged"


def test_an_unreachable_host_leaves_every_view_missing_with_the_reason() -> None:
    views = from_ssh("gpu-01", runner=FakeHost("healthy-dpu", fail=True))
    assert views.texts == {}
    assert "Connection refused" in views.missing["mst-status-v"]
    assert views.missing["mlxconfig-q"] == "no MST device found by mst status -v"


def test_cli_doctor_from_dir_exits_1_on_a_fault_and_prints_evidence_and_fix() -> None:
    result = CliRunner().invoke(
        app, ["doctor", "--from-dir", str(SAMPLES / "row3-probe-timeout")], env={"COLUMNS": "250"}
    )
    assert result.exit_code == 1
    assert "1. fault Host driver probe failed" in result.output
    assert "evidence dmesg:2:" in result.output and "fix:" in result.output


def test_cli_doctor_exits_0_when_only_expected_states_are_found() -> None:
    result = CliRunner().invoke(
        app, ["doctor", "--from-dir", str(SAMPLES / "row2-nic-mode-by-design")], env={"COLUMNS": "250"}
    )
    assert result.exit_code == 0, result.output
    assert "NIC mode active: Arm unreachable by design" in result.output


def test_cli_doctor_needs_exactly_one_source_and_a_known_mode() -> None:
    from fabrictwin.errors import SpecError

    result = CliRunner().invoke(app, ["doctor"])
    assert isinstance(result.exception, SpecError) and "exactly one" in str(result.exception)
    bad = CliRunner().invoke(
        app, ["doctor", "--from-dir", str(SAMPLES / "healthy-dpu"), "--expect-mode", "dp"]
    )
    assert isinstance(bad.exception, SpecError)


def test_the_default_runner_calls_the_ssh_binary_with_a_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    from fabrictwin.fleet.doctor.views import ssh_runner

    seen: dict[str, object] = {}

    def fake_run(argv: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
        seen.update(argv=argv, **kw)
        return subprocess.CompletedProcess(argv, 0, "MST modules:\n", "")

    monkeypatch.setattr(subprocess, "run", fake_run)
    status, out = ssh_runner(timeout_s=5)(["ssh", "h", "--", "mst status -v"])
    assert (status, out) == (0, "MST modules:\n")
    assert (
        seen["argv"] == ["ssh", "h", "--", "mst status -v"]
        and seen["timeout"] == 5
        and seen["check"] is False
    )

    def slow(argv: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
        raise subprocess.TimeoutExpired(argv, 5)

    monkeypatch.setattr(subprocess, "run", slow)
    assert ssh_runner(timeout_s=5)(["ssh", "h", "--", "dmesg"])[0] == 124


def test_cli_doctor_reads_a_running_emulator_over_http() -> None:
    import httpx

    from fabrictwin.emulator import serve_fleet

    with serve_fleet(dpus=1, seed=7, time_scale=0) as fleet:
        fleet.advance(600.0)
        httpx.post(f"{fleet.admin_url}/admin/devices/0/faults", json={"kind": "mlx5_probe_timeout"})
        result = CliRunner().invoke(
            app, ["doctor", "--emulator", fleet.root_url, "--device", "0"], env={"COLUMNS": "250"}
        )
    assert result.exit_code == 1, result.output
    assert "1. fault Host driver probe failed" in result.output and "evidence dmesg:" in result.output


def test_cli_doctor_all_lists_the_first_cause_of_every_emulated_dpu() -> None:
    import httpx

    from fabrictwin.emulator import serve_fleet

    with serve_fleet(dpus=3, seed=7, time_scale=0) as fleet:
        fleet.advance(600.0)
        httpx.post(f"{fleet.admin_url}/admin/devices/1/faults", json={"kind": "nic_health_compromised"})
        httpx.post(f"{fleet.admin_url}/admin/devices/2/faults", json={"kind": "link_type_ib"})
        result = CliRunner().invoke(
            app, ["doctor", "--emulator", fleet.root_url, "--all"], env={"COLUMNS": "200"}
        )
    assert result.exit_code == 1, result.output
    rows = [line for line in result.output.splitlines() if line.startswith("│ ")]
    assert len(rows) == 3
    assert "nic-health" in rows[1] and "link-type-ib" in rows[2] and " ok " in rows[0]
    assert "ok: 1" in result.output


def test_cli_doctor_all_needs_the_emulator() -> None:
    from fabrictwin.errors import SpecError

    result = CliRunner().invoke(app, ["doctor", "--from-dir", str(SAMPLES / "healthy-dpu"), "--all"])
    assert isinstance(result.exception, SpecError) and "--emulator only" in str(result.exception)
