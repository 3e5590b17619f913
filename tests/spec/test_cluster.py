"""Cluster files: defaults, catalog ids with suggestions, and hardware-aware rules."""

from __future__ import annotations

from pathlib import Path

import pytest

import fabrictwin
from fabrictwin.catalog import load_cluster
from fabrictwin.errors import SpecError
from fabrictwin.spec.cluster import DEFAULT_ROUTING, ClusterSpec

MINIMAL = """\
system: dgx-h100
nodes: 64
fabric:
  compute:
    link: ib-ndr
"""


def _error(text: str) -> str:
    with pytest.raises(SpecError) as info:
        load_cluster("cluster.yaml", text=text)
    return str(info.value)


def test_a_minimal_cluster_takes_the_documented_defaults() -> None:
    cluster = load_cluster("cluster.yaml", text=MINIMAL)
    compute = cluster.fabric.compute
    assert (cluster.system, cluster.nodes) == ("dgx-h100", 64)
    assert (compute.topology, compute.tiers, compute.oversubscription) == ("rail-optimized", "auto", 1.0)
    assert (compute.planes, compute.qps, compute.sharp, compute.routing) == (1, 1, False, None)
    assert cluster.fabric.storage is None
    assert cluster.fabric.oob.link == "tcp-1g"
    assert cluster.dpu.model is None


def test_the_issue_example_message_for_a_mistyped_link() -> None:
    text = "system: dgx-h100\nnodes: 64\nfabric:\n  compute:\n    link: ib-ndrr\n"
    assert (
        _error(text)
        == "cluster.yaml:5 fabric.compute.link: 'ib-ndrr' is not a known link; did you mean 'ib-ndr'?"
    )


def test_a_mistyped_system_suggests_the_real_one() -> None:
    assert _error(MINIMAL.replace("dgx-h100", "dgx-h10")).startswith(
        "cluster.yaml:1 system: 'dgx-h10' is not a known system; did you mean 'dgx-h100'"
    )


def test_a_full_cluster_file_loads_from_disk(tmp_path: Path) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(
        MINIMAL
        + "    sharp: true\n    routing: adaptive\n    tiers: 2\n    qps: 4\n    nics_per_node: 8\n"
        + "  storage: {link: roce-200g, nics_per_node: 2}\n"
        + "dpu: {model: bf3-b3220, mode: zero-trust, offloads: [ovs, ipsec, nvme-snap]}\n",
        encoding="utf-8",
    )
    cluster = fabrictwin.load_cluster(path)
    assert cluster.fabric.compute.sharp and cluster.fabric.compute.tiers == 2
    assert cluster.fabric.storage is not None and cluster.fabric.storage.link == "roce-200g"
    assert cluster.dpu.offloads == ["ovs", "ipsec", "nvme-snap"]


def test_sharp_on_an_ethernet_fabric_is_rejected_with_the_reason() -> None:
    text = MINIMAL.replace("ib-ndr", "roce-400g") + "    sharp: true\n"
    assert (
        _error(text)
        == "cluster.yaml:6 fabric.compute.sharp: SHARP needs an InfiniBand fabric; 'roce-400g' is roce"
    )


def test_sharp_on_a_switch_without_it_is_rejected() -> None:
    # an InfiniBand fabric forced onto an Ethernet switch model: the switch check speaks
    text = MINIMAL + "    switch: eth-400g-ecmp\n    sharp: true\n"
    assert "SHARP needs SHARP-capable switches; 'eth-400g-ecmp' is not" in _error(text)


def test_adaptive_routing_needs_switches_that_do_it() -> None:
    text = MINIMAL.replace("ib-ndr", "roce-400g") + "    routing: adaptive\n"
    assert _error(text) == (
        "cluster.yaml:6 fabric.compute.routing: switch 'eth-400g-ecmp' has no adaptive routing; use 'ecmp'"
    )


def test_dmodk_routing_is_infiniband_only() -> None:
    text = MINIMAL.replace("ib-ndr", "spectrum-x-400g") + "    routing: dmodk\n"
    assert "D-mod-K is InfiniBand subnet-manager routing; 'spectrum-x-400g' is spectrum-x" in _error(text)


def test_the_default_routing_follows_the_transport() -> None:
    cluster = load_cluster("c.yaml", text=MINIMAL)
    assert cluster.fabric.compute.routing_for("infiniband") == "dmodk"
    assert cluster.fabric.compute.routing_for("spectrum-x") == "adaptive"
    assert set(DEFAULT_ROUTING) == {"infiniband", "roce", "tcp", "spectrum-x"}


def test_an_unknown_topology_kind_suggests_the_closest() -> None:
    message = _error(MINIMAL + "    topology: rail-optimised\n")
    assert message.startswith(
        "cluster.yaml:6 fabric.compute.topology: 'rail-optimised' is not an allowed value"
    )
    assert message.endswith("did you mean 'rail-optimized'?")


def test_tiers_accept_auto_2_or_3_only() -> None:
    assert _error(MINIMAL + "    tiers: 4\n") == (
        "cluster.yaml:6 fabric.compute.tiers: 4 is not an allowed value; expected 'auto', 2 or 3"
    )


def test_oversubscription_below_one_is_out_of_range() -> None:
    assert _error(MINIMAL + "    oversubscription: 0.5\n") == (
        "cluster.yaml:6 fabric.compute.oversubscription: input should be greater than or equal to 1, got 0.5"
    )


def test_zero_nodes_is_out_of_range() -> None:
    assert _error(MINIMAL.replace("nodes: 64", "nodes: 0")) == (
        "cluster.yaml:2 nodes: input should be greater than 0, got 0"
    )


def test_a_missing_compute_fabric_is_reported() -> None:
    assert (
        _error("system: dgx-h100\nnodes: 4\nfabric: {}\n")
        == "cluster.yaml:3 fabric.compute: required key is missing"
    )


def test_a_dpu_id_must_name_a_dpu_not_any_nic() -> None:
    assert _error(MINIMAL + "dpu: {model: cx7-ndr}\n").startswith(
        "cluster.yaml:6 dpu.model: 'cx7-ndr' is not a known dpu;"
    )
    assert _error(MINIMAL + "dpu: {model: bf3-b322}\n") == (
        "cluster.yaml:6 dpu.model: 'bf3-b322' is not a known dpu; did you mean 'bf3-b3220'?"
    )


def test_arm_offloads_are_rejected_in_nic_mode() -> None:
    text = MINIMAL + "dpu: {model: bf3-b3220, mode: nic, offloads: [ovs, nvme-snap]}\n"
    assert (
        _error(text)
        == "cluster.yaml:6 dpu: offloads ['nvme-snap'] run on the Arm cores, which are off in NIC mode"
    )


def test_offloads_without_a_dpu_are_rejected() -> None:
    assert (
        _error(MINIMAL + "dpu: {offloads: [ipsec]}\n")
        == "cluster.yaml:6 dpu: offloads need a DPU: set dpu.model"
    )


def test_an_offload_listed_twice_is_rejected() -> None:
    assert "offloads lists a service twice" in _error(
        MINIMAL + "dpu: {model: bf3-b3220, offloads: [ovs, ovs]}\n"
    )


def test_an_unknown_offload_suggests_the_closest() -> None:
    assert "did you mean 'ipsec'?" in _error(MINIMAL + "dpu: {model: bf3-b3220, offloads: [ipsek]}\n")


def test_a_cluster_can_be_built_in_python_and_is_frozen() -> None:
    cluster = ClusterSpec.model_validate(
        {"system": "dgx-b200", "nodes": 2, "fabric": {"compute": {"link": "ib-xdr"}}}
    )
    assert cluster.fabric.compute.link == "ib-xdr"
    with pytest.raises(Exception, match="frozen"):
        cluster.nodes = 3  # type: ignore[misc]


def test_unknown_keys_in_optional_and_defaulted_sections_get_suggestions() -> None:
    text = (
        MINIMAL
        + "  storage:\n    link: roce-200g\n    nic_per_node: 2\n"
        + "  oob: {lnk: tcp-1g}\ndpu:\n  offload: [ovs]\n"
    )
    assert _error(text).splitlines() == [
        "cluster.yaml:8 fabric.storage.nic_per_node: unknown key 'nic_per_node'; "
        "did you mean 'nics_per_node'?",
        "  cluster.yaml:9 fabric.oob.lnk: unknown key 'lnk'; did you mean 'link'?",
        "  cluster.yaml:11 dpu.offload: unknown key 'offload'; did you mean 'offloads'?",
    ]


def test_a_scalar_where_a_section_belongs_is_named() -> None:
    assert _error("system: dgx-h100\nnodes: 64\nfabric: ib-ndr\n") == (
        "cluster.yaml:3 fabric: input should be a valid dictionary or instance of Fabrics, got 'ib-ndr'"
    )


def test_a_list_where_a_string_belongs_is_named() -> None:
    assert _error("system: [dgx-h100]\nnodes: 4\nfabric: {compute: {link: ib-ndr}}\n") == (
        "cluster.yaml:1 system: input should be a valid string, got a list"
    )


def test_a_fractional_node_count_shows_the_value_once() -> None:
    assert _error(MINIMAL.replace("nodes: 64", "nodes: 4.5")) == (
        "cluster.yaml:2 nodes: input should be a valid integer, got a number with a fractional part (4.5)"
    )
