"""Each emulator fault with a host-visible symptom: inject, collect over HTTP, the doctor names it first.

Faults left out have no host-side symptom the doctor reads: BMC/transfer/task/auth faults
(the rollout executor's business), ``rshim_owned_by_host`` (healthy from the host), clock skew
and SEL floods, ``versions_empty`` (Redfish inventory only), ``golden_image_recovery_available``;
``installer_vlan_fail`` only shows when bf.cfg carries BMC credentials, which a Redfish
SimpleUpdate does not send; ``push_timeout`` only on the host-RShim push path;
``wrong_generation_bfb`` only in the Redfish task (the rollout executor reads it); and
``mode_revert_on_fw_reset`` needs an ``mlxfwreset`` the emulator's admin API does not expose.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from fabrictwin.emulator import serve_fleet
from fabrictwin.fleet.doctor import diagnose
from fabrictwin.fleet.doctor.collect import from_emulator
from fabrictwin.spec.faults import EmulatorSettings

AUTH = ("root", "0penBmc")
NEXT_BFB = "bf-bundle-2.9.2-31_25.02_ubuntu-22.04_prod.bfb"
INSTALL_S = 3600.0
"""Virtual seconds to let a BFB install finish (reference 7.4: 20 min default, 40 min at most)."""


@dataclass
class Scenario:
    fault: dict[str, Any]
    steps: list[tuple[str, Any]]
    first: str
    expect_mode: str | None = None
    generation: str = "BF3"
    also: list[str] = field(default_factory=list)


def _cycle(kind: str = "cycle") -> tuple[str, Any]:
    return ("power", kind)


SCENARIOS: dict[str, Scenario] = {
    "mlx5_probe_timeout": Scenario({"kind": "mlx5_probe_timeout"}, [], "mlx5-probe-failed"),
    "nic_health_compromised": Scenario({"kind": "nic_health_compromised"}, [], "nic-health"),
    "host_pf_unbound_after_push": Scenario({"kind": "host_pf_unbound_after_push"}, [], "pf-unbound"),
    "link_down": Scenario({"kind": "link_down", "port": 1}, [], "link-down"),
    "link_type_ib": Scenario({"kind": "link_type_ib"}, [], "link-type-ib"),
    "rshim_absent": Scenario({"kind": "rshim_absent"}, [], "rshim-disabled"),
    "rshim_owned_by_bmc": Scenario({"kind": "rshim_owned_by_bmc"}, [], "rshim-owned-elsewhere"),
    "psc_error_60": Scenario({"kind": "psc_error_60"}, [_cycle()], "psc-error"),
    "secure_boot_db_missing_ms_ca": Scenario(
        {"kind": "secure_boot_db_missing_ms_ca"}, [_cycle()], "secure-boot-db"
    ),
    "uefi_boot_loop_no_os": Scenario({"kind": "uefi_boot_loop_no_os"}, [_cycle()], "dpu-mode-no-arm-os"),
    "kernel_panic_crashdump": Scenario({"kind": "kernel_panic_crashdump"}, [_cycle()], "arm-kernel-panic"),
    "powercycle_is_warm": Scenario(
        {"kind": "powercycle_is_warm"}, [("mode_set", "NicMode"), ("platform_cycle", None)], "mode-staged"
    ),
    "chassis_no_power_drain": Scenario(
        {"kind": "chassis_no_power_drain"}, [("nic", None), _cycle()], "mode-staged"
    ),
    "mode_revert_on_config_reset (staged)": Scenario(
        {"kind": "mode_revert_on_config_reset"},
        [("nic", None), _cycle(), ("fault", None)],
        "mode-reverted",
        "nic",
    ),
    "mode_revert_on_config_reset (applied)": Scenario(
        {"kind": "mode_revert_on_config_reset"},
        [("nic", None), _cycle(), ("fault", None), _cycle()],
        "mode-reverted",
        "nic",
    ),
    "inconsistent_bf2_tuple": Scenario({"kind": "inconsistent_bf2_tuple"}, [], "bf2-tuple", generation="BF2"),
    "version_mismatch": Scenario(
        {"kind": "version_mismatch", "host_doca": "MLNX_OFED_LINUX-23.10-1.1.9"}, [], "version-mismatch"
    ),
    "bios_attr_missing_nicmode": Scenario({"kind": "bios_attr_missing_nicmode"}, [], "bios-nicmode-missing"),
    "nic_fw_reset_unsupported": Scenario(
        {"kind": "nic_fw_reset_unsupported"}, [("install", None)], "fw-staged"
    ),
    "partial_install_nic_fw_fail": Scenario(
        {"kind": "partial_install_nic_fw_fail"}, [("install", None)], "install-partial"
    ),
}


class Driver:
    """Acts on one emulated DPU through the emulator's HTTP interfaces only."""

    def __init__(self, fleet: Any, client: httpx.Client) -> None:
        self.fleet, self.c = fleet, client
        self.dev = f"{fleet.admin_url}/admin/devices/0"

    def do(self, step: str, arg: Any, fault: dict[str, Any]) -> None:
        if step == "fault":
            assert self.c.post(f"{self.dev}/faults", json=fault).status_code == 201
        elif step == "power":
            assert self.c.post(f"{self.dev}/host/power", json={"action": arg}).is_success
        elif step == "nic":
            body = {"set": {"INTERNAL_CPU_OFFLOAD_ENGINE": 1}}
            assert self.c.post(f"{self.dev}/host/mlxconfig", json=body).is_success
        elif step == "mode_set":
            url = f"{self.fleet.bmc_urls[0]}/redfish/v1/Systems/Bluefield/Oem/Nvidia/Actions/Mode.Set"
            assert self.c.post(url, json={"Mode": arg}, auth=AUTH).is_success
        elif step == "platform_cycle":
            url = f"{self.fleet.platform_urls[0]}/redfish/v1/Systems/System_0/Actions/ComputerSystem.Reset"
            assert self.c.post(url, json={"ResetType": "PowerCycle"}, auth=AUTH).is_success
        elif step == "install":
            body = {
                "TransferProtocol": "HTTP",
                "ImageURI": self.fleet.image_url(NEXT_BFB),
                "Targets": ["/redfish/v1/UpdateService/FirmwareInventory/DPU_OS"],
            }
            url = f"{self.fleet.bmc_urls[0]}/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate"
            assert self.c.post(url, json=body, auth=AUTH).is_success
            self.fleet.advance(INSTALL_S)
        self.fleet.advance(600.0)  # boot, NC-SI poll and BMC version refresh settle (7.2, 7.3)


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=30.0) as c:
        yield c


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_an_injected_fault_is_named_first_from_views_collected_over_http(
    name: str, client: httpx.Client
) -> None:
    sc = SCENARIOS[name]
    settings = EmulatorSettings(dpus=1, seed=7, time_scale=0, port=0, generation=sc.generation)
    with serve_fleet(settings=settings) as fleet:
        driver = Driver(fleet, client)
        steps = sc.steps if any(s == "fault" for s, _ in sc.steps) else [("fault", None), *sc.steps]
        for step, arg in steps:
            driver.do(step, arg, sc.fault)
        views = from_emulator(fleet.root_url, 0)
    result = diagnose(views, sc.expect_mode)
    assert result.first is not None, (name, views.missing)
    assert result.first.cause == sc.first, [f.cause for f in result.findings]
    assert result.first.evidence, name


def test_a_fault_free_emulated_dpu_gets_a_clean_bill(client: httpx.Client) -> None:
    with serve_fleet(dpus=1, seed=7, time_scale=0) as fleet:
        fleet.advance(600.0)
        views = from_emulator(fleet.root_url, 0)
    assert diagnose(views).findings == ()
    assert {"mlxconfig-q", "dmesg", "redfish-system", "redfish-oem-nvidia"} <= set(views.texts)


def test_an_unknown_emulated_device_is_a_deliberate_error() -> None:
    from fabrictwin.errors import DeviceError

    with serve_fleet(dpus=1, seed=7, time_scale=0) as fleet, pytest.raises(DeviceError, match="no device"):
        from_emulator(fleet.root_url, 5)
