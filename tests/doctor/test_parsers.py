"""Parsers read the real formats of the host tools, keeping each evidence line's number."""

from __future__ import annotations

from pathlib import Path

from fabrictwin.fleet.doctor.parsers import (
    code_of,
    parse_eswitch,
    parse_flint,
    parse_ip_link,
    parse_lspci,
    parse_mlxconfig,
    parse_mst,
    parse_rshim_misc,
)

SAMPLES = Path(__file__).parent / "samples"


def _read(folder: str, name: str) -> str:
    return (SAMPLES / folder / name).read_text()


def test_mlxconfig_rows_keep_default_current_next_and_the_pending_star() -> None:
    params, device = parse_mlxconfig(_read("row1-mode-staged", "mlxconfig-q.txt"))
    assert device == "BlueField3"
    mode = params["INTERNAL_CPU_OFFLOAD_ENGINE"]
    assert (mode.default, mode.current, mode.next_boot) == ("ENABLED(0)", "ENABLED(0)", "DISABLED(1)")
    assert mode.starred and mode.pending and mode.line.text.lstrip().startswith("*")
    assert not params["NUM_OF_VFS"].pending and params["NUM_OF_VFS"].current == "16"


def test_mlxconfig_single_column_output_of_older_tools_reads_as_all_three() -> None:
    text = (
        "Device type:    BlueField2\nConfigurations:                              Next Boot\n"
        "         INTERNAL_CPU_MODEL                  EMBEDDED_CPU(1)\n"
    )
    params, _ = parse_mlxconfig(text)
    p = params["INTERNAL_CPU_MODEL"]
    assert (p.default, p.current, p.next_boot) == ("EMBEDDED_CPU(1)",) * 3 and not p.pending


def test_printed_codes_are_read_from_the_parentheses() -> None:
    assert [code_of(v) for v in ("DISABLED(1)", "ECPF(0)", "16", "True(1)", "_256KB(1)", "N/A")] == [
        1,
        0,
        16,
        1,
        1,
        None,
    ]


def test_mst_status_keeps_an_empty_net_column_empty() -> None:
    rows = parse_mst(_read("row3-probe-timeout", "mst-status-v.txt"))
    by_pci = {r.pci: r for r in rows}
    assert by_pci["e2:00.0"].net == "" and by_pci["e2:00.1"].net == "ens7f1np1"
    assert by_pci["e2:00.0"].mst == "/dev/mst/mt41692_pciconf0" and by_pci["e2:00.1"].rdma == "mlx5_1"


def test_lspci_k_attaches_driver_and_module_lines_to_their_function() -> None:
    fns = parse_lspci(_read("fm-pf-unbound-after-push", "lspci-k.txt"))
    assert [f.bdf for f in fns] == ["e2:00.0", "e2:00.1", "e2:00.2"]
    assert fns[0].is_network_pf and fns[0].driver == "" and fns[0].modules == "mlx5_core"
    assert not fns[2].is_network_pf and fns[2].kind == "DMA controller"
    healthy = parse_lspci(_read("healthy-dpu", "lspci-k.txt"))
    assert healthy[0].driver == "mlx5_core"


def test_ip_br_link_reads_state_and_no_carrier() -> None:
    links = {ln.name: ln for ln in parse_ip_link(_read("fm-link-down", "ip-br-link.txt"))}
    assert links["ens7f0np0"].carrier and not links["ens7f1np1"].carrier
    assert links["ens7f1np1"].line.number == 4


def test_devlink_eswitch_mode_is_read_per_pci_handle() -> None:
    rows = parse_eswitch(_read("row9-eswitch-legacy", "devlink-eswitch-show.txt"))
    assert [(h, m) for h, m, _ in rows] == [("pci/0000:e2:00.0", "legacy")]
    assert parse_eswitch("kernel answers: Operation not supported\n") == []


def test_flint_fields_include_the_running_version_when_staged() -> None:
    fields = parse_flint(_read("fm-nic-fw-staged", "flint-q.txt"))
    assert fields["FW Version"].text.endswith("32.43.2566")
    assert fields["FW Version(Running)"].text.endswith("32.41.1000")
    assert "FW Version(Running)" not in parse_flint(_read("healthy-dpu", "flint-q.txt"))


def test_rshim_misc_splits_settings_from_log_lines() -> None:
    settings, log = parse_rshim_misc(_read("fm-psc-error", "rshim-misc.txt"))
    assert settings["DEV_INFO"].text.split(None, 1)[1] == "BlueField-3(Rev 1)"
    assert [ln.text for ln in log] == [
        "INFO[PSC]: PSC BL1 START",
        "ERR[BL1]: PSC error -60",
        "ERR[BL1]: PSC BR_EXIT timeout",
    ]
