"""On saved outputs, the doctor names the right cause first, quoting the evidence line."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabrictwin.errors import NotFound
from fabrictwin.fleet.doctor import diagnose, from_dir

SAMPLES = Path(__file__).parent / "samples"

# folder -> (expected first cause, text the first evidence line must contain, expected mode)
CASES: dict[str, tuple[str, str, str | None]] = {
    "row1-mode-staged": ("mode-staged", "INTERNAL_CPU_OFFLOAD_ENGINE", None),
    "row2-nic-mode-by-design": ("nic-mode-by-design", "DISABLED(1)", None),
    "row3-probe-timeout": ("mlx5-probe-failed", "Waiting for FW initialization", None),
    "row3-health-compromised": ("nic-health", "health compromised", None),
    "row3-dead-firmware": ("dead-firmware", "65535.65535.65535", None),
    "row4-bf2-inconsistent-tuple": ("bf2-tuple", "INTERNAL_CPU_MODEL", None),
    "row5-mode-reverted": ("dpu-mode-no-arm-os", "ENABLED(0)", "nic"),
    "row6-link-type-ib": ("link-type-ib", "IB(1)", None),
    "row7-driver-missing": ("driver-missing", "e2:00.0 Ethernet controller", None),
    "row8-rshim-disabled": ("rshim-disabled", "No such file or directory", None),
    "row10-multi-host": ("multi-host", "SocketDirect", None),
    "fm-pf-unbound-after-push": ("pf-unbound", "e2:00.0 Ethernet controller", None),
    "fm-rshim-owned-by-bmc": ("rshim-owned-elsewhere", "another backend already attached", None),
    "fm-psc-error": ("psc-error", "PSC error -60", None),
    "fm-nic-fw-staged": ("fw-staged", "FW Version:", None),
    "fm-secure-boot-db": ("secure-boot-db", "Failed to boot 'ubuntu0'", None),
    "fm-partial-install": ("install-partial", "NIC firmware update failed", None),
    "fm-link-down": ("link-down", "NO-CARRIER", None),
    "fm-version-mismatch": ("version-mismatch", "MLNX_OFED_LINUX-23.10", None),
    "fm-bios-nicmode-missing": ("bios-nicmode-missing", '"Attributes"', None),
}


@pytest.mark.parametrize("folder", sorted(CASES))
def test_the_right_cause_comes_first_with_its_evidence_line(folder: str) -> None:
    cause, evidence, expect = CASES[folder]
    result = diagnose(from_dir(SAMPLES / folder), expect)
    assert result.first is not None, folder
    assert result.first.cause == cause, [f.cause for f in result.findings]
    assert evidence in result.first.evidence[0].text
    assert result.first.evidence[0].number >= 1 and result.first.fix


def test_every_sample_folder_has_a_case() -> None:
    folders = {p.name for p in SAMPLES.iterdir() if p.is_dir()}
    assert folders - set(CASES) == {"healthy-dpu", "row9-eswitch-legacy"}


def test_a_healthy_dpu_mode_host_has_no_findings() -> None:
    result = diagnose(from_dir(SAMPLES / "healthy-dpu"))
    assert result.findings == ()
    assert "host PFs: 2, with a netdev: 2" in result.summary


def test_nic_mode_says_an_unreachable_arm_is_expected_and_names_the_legacy_eswitch() -> None:
    result = diagnose(from_dir(SAMPLES / "row9-eswitch-legacy"))
    causes = [f.cause for f in result.findings]
    assert causes == ["nic-mode-by-design", "eswitch-legacy"]
    assert all(f.kind == "expected" for f in result.findings)
    assert any("unreachable Arm is expected" in line for line in result.summary)
    legacy = result.findings[1]
    assert legacy.evidence[0].text.startswith("pci/0000:e2:00.0: mode legacy")


def test_with_nic_mode_intended_a_staged_default_is_named_a_reversion() -> None:
    result = diagnose(from_dir(SAMPLES / "row1-mode-staged"), "dpu")
    assert result.first is not None and result.first.cause == "mode-reverted"
    plain = diagnose(from_dir(SAMPLES / "row1-mode-staged"))
    assert plain.first is not None and plain.first.cause == "mode-staged"


def test_a_bare_missing_netdev_is_reported_only_when_nothing_explains_it(tmp_path: Path) -> None:
    for name in ("mst-status-v.txt", "lspci-k.txt", "ip-br-link.txt"):
        (tmp_path / name).write_text((SAMPLES / "row3-probe-timeout" / name).read_text())
    result = diagnose(from_dir(tmp_path))
    assert [f.cause for f in result.findings] == ["no-netdev"]
    assert any("e2:00.0" in ln.text for ln in result.findings[0].evidence)


def test_the_dead_firmware_cause_outranks_the_probe_failure_it_causes() -> None:
    causes = [f.cause for f in diagnose(from_dir(SAMPLES / "row3-dead-firmware")).findings]
    assert causes.index("dead-firmware") < causes.index("mlx5-probe-failed")


def test_a_missing_or_empty_folder_is_a_deliberate_error(tmp_path: Path) -> None:
    with pytest.raises(NotFound, match="no such folder"):
        from_dir(tmp_path / "nope")
    with pytest.raises(NotFound, match="none of the expected files"):
        from_dir(tmp_path)
