"""The DMTF redfish-service-validator against one emulated BMC on 127.0.x.y (subprocess).

The DMTF schema bundle cannot be downloaded here, so the validator reads the CSDL files the
emulator serves (``/redfish/v1/schema``), with ``--skipschema``; OEM extensions are skipped
(``--nooemcheck``) because NVIDIA's OEM schemas are not public. A negative control proves the
validator and those schemas do catch a payload that breaks its type.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from fabrictwin.emulator import serve_fleet
from fabrictwin.emulator.redfish import bmc, system
from fabrictwin.emulator.redfish.csdl import all_schema_names
from fabrictwin.spec.faults import EmulatorSettings

VALIDATOR = shutil.which("rf_service_validator") or str(
    Path(sys.executable).with_name("rf_service_validator")
)


def _validate(url: str, tmp: Path, auth: str = "Session") -> tuple[int, int, int, str]:
    schemas = tmp / "schemas"
    schemas.mkdir(exist_ok=True)
    for name in all_schema_names():
        (schemas / name).write_text(httpx.get(f"{url}/redfish/v1/schema/{name}").text)
    out = subprocess.run(
        [
            VALIDATOR,
            "--rhost",
            url,
            "-u",
            "root",
            "-p",
            "0penBmc",
            "--schema_directory",
            str(schemas),
            "--skipschema",
            "--nooemcheck",
            "--authtype",
            auth,
            "--logdir",
            str(tmp / "logs"),
            "--timeout",
            "10",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    row = re.search(r"\|\s+(\d+)\s+\|\s+(\d+)\s+\|\s+(\d+)\s+\|\s+(\d+)\s+\|", out.stdout)
    assert row, out.stdout[-2000:] + out.stderr[-2000:]
    passed, warned, failed, _ = (int(x) for x in row.groups())
    return passed, warned, failed, out.stdout


@pytest.fixture(scope="module")
def one_bmc():
    with serve_fleet(1, seed=7, time_scale=0) as handle:
        yield handle


def test_the_dmtf_service_validator_passes_one_emulated_bmc(one_bmc, tmp_path):
    passed, warned, failed, text = _validate(one_bmc.bmc_urls[0], tmp_path)
    assert "Validating /redfish/v1/SessionService/Sessions/1..." in text  # its own session
    assert failed == 0 and warned == 0, text[-3000:]
    assert passed > 400  # the whole tree was walked: ~30 resources, ~14 checks each
    for uri in (
        "/redfish/v1/Systems/Bluefield",
        "/redfish/v1/TaskService",
        "/redfish/v1/UpdateService/FirmwareInventory/DPU_OS",
    ):
        assert f"Validating {uri}..." in text


def test_the_validator_catches_a_property_that_breaks_its_type(one_bmc, tmp_path, monkeypatch):
    def broken(dev):
        body = system.computer_system(dev)
        body["PowerState"] = "Sideways"  # not a Resource.PowerState member
        return body

    monkeypatch.setitem(bmc.STATIC, "/redfish/v1/Systems/Bluefield", broken)
    _, _, failed, text = _validate(one_bmc.bmc_urls[0], tmp_path, auth="Basic")
    assert failed == 1
    assert re.search(
        r"Validating /redfish/v1/Systems/Bluefield\.\.\.\n\s+- Pass: \d+, Warn: 0, Fail: 1", text
    )


@pytest.mark.parametrize(
    ("generation", "profile", "mode"), [("BF2", "A", "DpuMode"), ("BF3", "B", "NicMode")]
)
def test_the_validator_also_passes_older_profiles_and_nic_mode(tmp_path, generation, profile, mode):
    settings = EmulatorSettings(
        dpus=1, port=0, time_scale=0, generation=generation, profile=profile, mode=mode
    )
    with serve_fleet(settings=settings) as handle:
        passed, warned, failed, text = _validate(handle.bmc_urls[0], tmp_path, auth="Basic")
    assert failed == 0 and warned == 0 and passed > 400, text[-3000:]
