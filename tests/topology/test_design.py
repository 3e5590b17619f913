"""Cluster design: compute/storage/OOB counts, NIC placement reasons, SHARP, BOM arithmetic, errors."""

from __future__ import annotations

import math

import pytest

from fabrictwin import catalog
from fabrictwin.errors import Infeasible
from fabrictwin.topology.bom import optics_lines, totals
from fabrictwin.topology.design import design_cluster, design_from_catalog, radix_at
from fabrictwin.topology.layout import plane_layout


def test_64_nodes_on_ndr_is_two_tiers_16_leaves_8_spines_512_plus_512_links() -> None:
    d = design_from_catalog(64, 8, "ib-ndr")
    c = d.compute
    assert (c.tiers, c.leaf_switches, c.spine_switches, c.core_switches) == (2, 16, 8, 0)
    assert (c.node_links, c.leaf_spine_links, c.spine_core_links) == (512, 512, 0)
    assert c.switch_model == "qm9700"
    assert d.gpus == 512


def test_b200_superpod_rows_come_out_of_the_full_design() -> None:
    # B200 RA table (reference section 1.3): 16 SU -> 128 / 128 / 64 switches, 4096 links per tier.
    d = design_from_catalog(512, 8, "ib-ndr", system_id="dgx-b200")
    c = d.compute
    assert (c.tiers, c.leaf_switches, c.spine_switches, c.core_switches) == (3, 128, 128, 64)
    assert (c.node_links, c.leaf_spine_links, c.spine_core_links) == (4096, 4096, 4096)


def test_b300_xdr_row_with_the_q3400_radix() -> None:
    # B300 XDR RA (reference 1.4): 4 SU of 72 nodes -> 32 leaves, 18 spines.
    d = design_from_catalog(288, 8, "ib-xdr")
    assert (d.compute.radix, d.compute.leaf_switches, d.compute.spine_switches) == (144, 32, 18)


def test_spectrum_x_fits_512_gpus_in_8_leaves_and_4_spines() -> None:
    # Reference 2.2: E = 512 at 400G, k = 128 (SN5600 as 128 x 400G): 8 leaves + 4 spines.
    d = design_from_catalog(64, 8, "spectrum-x-400g")
    assert (d.compute.leaf_switches, d.compute.spine_switches) == (8, 4)
    assert d.nics_per_node[0].adapter == "bf3-b3140h" and "SuperNIC" in d.nics_per_node[0].mode


def test_supernics_go_on_the_rails_and_the_dpu_goes_north_south() -> None:
    d = design_from_catalog(64, 8, "roce-400g")
    roles = {p.role: p for p in d.nics_per_node}
    assert roles["compute"].count == 8 and "per GPU" in roles["compute"].why
    ns = roles["north-south"]
    assert ns.adapter == "bf3-b3220" and ns.mode == "DPU mode"
    assert "tenant isolation" in ns.why and "off the collective path" in ns.why
    assert [p.adapter for p in d.nics_per_node if p.role == "oob"] == ["dpu-bmc", "bmc"]


def test_sharp_is_offered_only_on_infiniband_with_a_nic_per_gpu() -> None:
    assert design_from_catalog(64, 8, "ib-ndr").sharp.version == "SHARPv3"
    assert not design_from_catalog(64, 8, "roce-400g").sharp.capable
    # DGX-1 has 4 EDR NICs for 8 GPUs: NCCL 2.18.1 known issue -> no SHARP.
    sparse = design_from_catalog(32, 8, "ib-ndr", system_id="dgx-1-v100")
    assert not sparse.sharp.capable and "fewer NICs than GPUs" in sparse.sharp.reason


def test_oob_counts_bmc_dpu_bmc_and_switch_management_ports() -> None:
    d = design_from_catalog(64, 8, "ib-ndr")
    assert d.storage is not None
    expected = 64 * 2 + d.compute.switches + d.storage.switches
    assert d.oob.ports == expected
    assert d.oob.switches == math.ceil(expected / 48)


def test_the_bom_counts_optics_by_the_twin_port_rule() -> None:
    d = design_from_catalog(64, 8, "ib-ndr")
    optics = [ln for ln in d.bom if ln.network == "compute" and ln.category == "optics"]
    host, twin = optics
    assert host.quantity == 512
    assert twin.quantity == 512 // 2 + 512  # half a module per node link, one per switch-switch link
    switch = next(ln for ln in d.bom if ln.network == "compute" and ln.category == "switch")
    assert switch.quantity == 24 and switch.power_w == 24 * catalog.switch("qm9700").power_w
    t = totals(d.bom)
    assert t["network_price_usd"] == pytest.approx(sum(ln.price_usd for ln in d.bom if ln.network != "nodes"))
    assert t["network_power_w"] > 0


def test_optics_for_other_rates_are_scaled_and_say_so() -> None:
    lines = optics_lines("compute", 800.0, 10, 10)
    assert lines[0].unit_power_w == pytest.approx(18.0)
    assert "scaled linearly" in lines[0].source
    assert lines[1].quantity == 5 + 10


def test_200g_ports_use_400g_modules_and_splitters_four_ports_per_twin_module() -> None:
    host, twin, fibre = optics_lines("storage", 200.0, 128, 64)
    assert host.item.startswith("400G") and host.unit_power_w == 9.0
    assert twin.item.startswith("800G") and "4x200G" in twin.item
    assert twin.quantity == 128 // 4 + 2 * 64 // 4
    assert fibre.quantity == 192


def test_a_system_adds_server_power_and_uses_its_north_south_adapters() -> None:
    d = design_from_catalog(32, 8, "ib-ndr", system_id="dgx-h100")
    server = next(ln for ln in d.bom if ln.category == "server")
    assert server.quantity == 32 and server.power_w == 32 * 10200.0
    ns = next(p for p in d.nics_per_node if p.role == "north-south")
    assert ns.adapter == "cx7-2p-400g" and ns.count == 2 and ns.mode == "NIC"


def test_partial_scalable_units_are_noted_and_oversubscription_thins_the_spines() -> None:
    d = design_from_catalog(40, 8, "ib-ndr")
    assert d.compute.leaf_switches == 16 and any("24 unused" in n for n in d.notes)
    thin = design_from_catalog(96, 8, "ib-ndr", oversubscription=3.0)
    assert thin.compute.leaf_spine_links == 16 * 16
    assert thin.compute.bisection_Bps < design_from_catalog(96, 8, "ib-ndr").compute.bisection_Bps


def test_two_planes_double_the_switches_and_need_two_ports_per_nic() -> None:
    one = design_from_catalog(64, 8, "roce-400g", system_id="dgx-h100")
    with pytest.raises(Infeasible, match="2 plane"):
        design_from_catalog(64, 8, "roce-400g", planes=2)
    nic2 = catalog.nic("cx7-2p-400g")
    fabric = catalog.fabric("roce-400g")
    two = design_cluster(64, 8, fabric, catalog.switch(fabric.switch), nic2, planes=2)
    assert two.compute.switches == 2 * one.compute.switches
    assert two.compute.node_links == 2 * one.compute.node_links


def test_infeasible_requests_name_the_reason_and_the_nearest_choice() -> None:
    with pytest.raises(Infeasible, match="2-tier fat tree of radix 64") as err:
        design_from_catalog(512, 8, "ib-ndr", tiers=2)
    assert "tiers 3" in str(err.value)
    with pytest.raises(Infeasible, match="not a multiple of the 32-node scalable unit"):
        design_from_catalog(40, 8, "ib-ndr", whole_units=True)
    with pytest.raises(Infeasible, match="has 8 GPUs per node, not 4"):
        design_from_catalog(64, 4, "ib-ndr", system_id="dgx-h100")
    with pytest.raises(Infeasible, match="slower than"):
        radix_at(catalog.switch("qm9700"), 800e9)
    fabric = catalog.fabric("ib-ndr")
    with pytest.raises(Infeasible, match="is ethernet"):
        design_cluster(8, 8, fabric, catalog.switch("sn5600"), catalog.nic("cx7-ndr"))


def test_json_shape_has_the_promised_keys() -> None:
    data = design_from_catalog(64, 8, "ib-ndr").to_dict()
    assert {"nodes", "gpus", "compute", "storage", "oob", "nics_per_node", "bom"} <= set(data)
    need = {"tiers", "leaf_switches", "spine_switches", "core_switches", "switch_model", "node_links",
            "leaf_spine_links", "spine_core_links"}  # fmt: skip
    assert need <= set(data["compute"])


def test_the_layout_aggregates_thousands_of_nodes_into_few_boxes() -> None:
    d = design_from_catalog(2048, 8, "ib-ndr")
    boxes, edges = plane_layout(d.plane, d.nodes, max_boxes=16)
    assert len(boxes) <= 4 * 16
    by_row = [sum(b.count for b in boxes if b.row == r) for r in range(4)]
    assert by_row == [2048, 512, 512, 256]
    lower = sum(e.links for e in edges if boxes[e.a].row == 0)
    assert lower == 16384
    assert sum(e.links for e in edges if boxes[e.a].row == 2) == 16384


@pytest.mark.parametrize(("nodes", "leaves", "spines"), [(64, 16, 8), (256, 64, 32), (1024, 256, 128)])
def test_b300_spectrum_x_rows_with_connectx8_split_over_two_planes(
    nodes: int, leaves: int, spines: int
) -> None:
    # B300 Spectrum-X RA (reference 1.4): CX-8 gives each GPU 2 x 400GbE on two planes; the RA counts one
    # cable per 2 x 400G, i.e. half our logical links.
    d = design_from_catalog(nodes, 8, "spectrum-x-400g", nic_id="cx8", planes=2)
    assert (d.compute.leaf_switches, d.compute.spine_switches) == (leaves, spines)
    assert (d.compute.node_links // 2, d.compute.leaf_spine_links // 2) == (nodes * 8, nodes * 8)
    assert any("1/2 of the bandwidth" in n for n in d.notes)


def test_gb200_racks_use_the_8_rack_scalable_unit() -> None:
    d = design_from_catalog(16, 72, "ib-ndr", system_id="gb200-nvl72")
    assert (d.compute.su_nodes, d.compute.tiers, d.compute.leaf_switches) == (8, 2, 36)
    assert d.compute.node_links == 16 * 72
