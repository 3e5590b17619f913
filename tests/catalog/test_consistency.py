"""The catalog agrees with itself and with the architectures it describes."""

from __future__ import annotations

import pytest

from fabrictwin import catalog
from fabrictwin.spec.workload import ModelSpec

ETHERNET = {"roce", "tcp", "spectrum-x"}


@pytest.mark.parametrize("fabric_id", catalog.ids("fabric"))
def test_a_fabric_default_switch_speaks_its_transport_at_its_rate(fabric_id: str) -> None:
    fabric = catalog.fabric(fabric_id)
    switch = catalog.switch(fabric.switch)
    expected = "infiniband" if fabric.transport == "infiniband" else "ethernet"
    assert switch.protocol == expected
    assert switch.port_bps == fabric.link_bps


@pytest.mark.parametrize("fabric_id", catalog.ids("fabric"))
def test_a_fabric_default_nic_can_drive_its_link(fabric_id: str) -> None:
    fabric = catalog.fabric(fabric_id)
    nic = catalog.nic(fabric.nic)
    protocol = "infiniband" if fabric.transport == "infiniband" else "ethernet"
    assert protocol in nic.protocols
    assert nic.port_bps >= fabric.link_bps


def test_sharp_and_adaptive_routing_come_with_infiniband_switches() -> None:
    for switch_id in catalog.ids("switch"):
        switch = catalog.switch(switch_id)
        if switch.sharp:
            assert switch.protocol == "infiniband", switch_id


@pytest.mark.parametrize("system_id", catalog.ids("system"))
def test_a_system_is_consistent_with_its_parts(system_id: str) -> None:
    system = catalog.system(system_id)
    gpu = catalog.gpu(system.gpu)
    if system.nvswitch:
        # through NVSwitch each GPU reaches its peers at its full NVLink rate
        assert system.intra_node_Bps == gpu.nvlink_Bps
    else:
        assert system.intra_node_Bps <= max(gpu.nvlink_Bps, gpu.pcie_Bps)
    assert system.power_w > system.gpus * gpu.tdp_w  # the GPUs alone fit in the power budget
    assert catalog.nic(system.compute_nic).kind in ("nic", "supernic")


@pytest.mark.parametrize("nic_id", catalog.ids("nic"))
def test_an_adapter_carries_no_more_than_its_ports(nic_id: str) -> None:
    nic = catalog.nic(nic_id)
    assert nic.max_bps <= nic.ports * nic.port_bps
    if nic.kind == "dpu":
        assert nic.arm_cores > 0 and nic.dram_bytes > 0


def _recount(model: ModelSpec) -> tuple[float, float, float]:
    """(total params, active params, forward FLOP per token) from the architecture numbers."""
    h, f, layers, vocab = model.hidden, model.ffn_hidden, model.layers, model.vocab
    kv = model.kv_heads or model.heads
    attention = 2 * h * h + 2 * h * (h * kv // model.heads)
    swiglu = model.id.startswith(("llama", "mixtral"))
    mlp = (3 if swiglu else 2) * h * f
    untied = 2 if swiglu else 1  # Llama/Mixtral untie input and output embeddings; GPT-3 ties them
    total = layers * (attention + mlp * model.experts) + untied * vocab * h
    active_nonemb = layers * (attention + mlp * model.top_k)
    forward = 2 * active_nonemb + 2 * layers * model.seq_len * h + 2 * h * vocab
    return total, active_nonemb + untied * vocab * h, forward


@pytest.mark.parametrize("model_id", ["gpt3-175b", "llama3-8b", "llama3-70b", "llama3-405b", "mixtral-8x7b"])
def test_a_decoder_entry_agrees_with_its_architecture(model_id: str) -> None:
    model = catalog.model(model_id)
    total, active, forward = _recount(model)
    # 0.5 %: the data file rounds to 4-5 significant digits; GPT-3 also has 2048 x h position
    # embeddings and biases not counted here (< 0.5 %)
    assert model.parameters == pytest.approx(total, rel=0.005)
    assert model.params_per_token == pytest.approx(active, rel=0.005)
    assert model.forward_flop_per_unit == pytest.approx(forward, rel=0.005)


@pytest.mark.parametrize("model_id", ["gpt3-175b", "llama3-8b", "llama3-70b", "llama3-405b", "bert-large"])
def test_dense_transformer_activations_follow_korthikanti_without_scores(model_id: str) -> None:
    model = catalog.model(model_id)
    per_token = 34 * model.hidden
    tokens = model.seq_len if model.unit == "sequence" else 1
    assert model.activation_bytes_per_unit_per_layer == pytest.approx(per_token * tokens, rel=0.001)


# Wire framing per packet (bytes), from the standards cited in catalog/data/fabrics.yaml:
# IBTA vol. 1 (LRH 8, BTH 12, ICRC 4, VCRC 2); RoCEv2 annex A17 + IEEE 802.3 (Eth 14, IPv4 20,
# UDP 8, BTH 12, ICRC 4, FCS 4, preamble 8, IFG 12); TCP/IPv4 with timestamps at MTU 1500.
FRAMING = {
    "infiniband": (4096, 8 + 12 + 4 + 2),
    "roce": (4096, 14 + 20 + 8 + 12 + 4 + 4 + 8 + 12),
    "spectrum-x": (4096, 14 + 20 + 8 + 12 + 4 + 4 + 8 + 12),
    "tcp": (1500 - 20 - 20 - 12, 20 + 20 + 12 + 14 + 4 + 8 + 12),
}


@pytest.mark.parametrize("fabric_id", catalog.ids("fabric"))
def test_fabric_efficiency_is_payload_over_wire_bytes(fabric_id: str) -> None:
    fabric = catalog.fabric(fabric_id)
    payload, overhead = FRAMING[fabric.transport]
    assert fabric.efficiency == pytest.approx(payload / (payload + overhead), abs=5e-5)
