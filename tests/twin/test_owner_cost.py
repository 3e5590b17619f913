"""Owner's cost of a run: servers and network amortized over the run, plus energy (docs/models/cost.md)."""

from __future__ import annotations

from typing import Any

import pytest

from fabrictwin import catalog
from fabrictwin.errors import SpecError
from fabrictwin.spec.scenario import load_scenario
from fabrictwin.topology import bom
from fabrictwin.topology.design import design_from_catalog
from fabrictwin.twin.cost import YEAR_S, fabric_power_w, network_design, owner_cost, server_price_usd
from fabrictwin.twin.resolve import resolve
from fabrictwin.twin.simulate import simulate

REL = 1e-9
"""Pure arithmetic: the hand derivation and the code must agree to rounding."""


def owner(make_scenario: Any, **cluster: Any) -> Any:
    return make_scenario(cluster=cluster, cost={"model": "owner"})


def test_owner_cost_of_a_tiny_cluster_matches_the_hand_derivation(make_scenario: Any) -> None:
    # 2 DGX H100 on IB NDR, a bare-server price of $100,000, a 2-year life, 1/1000 of a year of wall
    # time, 50 kWh at $0.10:
    #   servers = 2 x 100,000 x (YEAR/1000) / (2 x YEAR)      = $100
    #   network = BOM network capex x (YEAR/1000) / (2 x YEAR) = capex / 2000
    #   energy  = (50 kWh + fabric W x 1.3 PUE x YEAR/1000 s / 3.6e6) x 0.10 $/kWh
    #           = $5 + fabric W x 1.3 x 31,557.6 / 3.6e6 x 0.10
    # The network capex and the fabric's power (switches, optics; not the adapters inside the
    # servers) are the topology design's (its counts are tested in tests/topology); here they
    # must equal the catalog design of the same cluster, since no DPU is named.
    s = make_scenario(
        cluster={"nodes": 2},
        cost={"model": "owner", "server_usd": 100_000, "amortization_years": 2, "usd_per_kwh": 0.10},
    )
    parts = owner_cost(s, resolve(s), wall_s=YEAR_S / 1000, energy_kwh=50.0)
    lines = design_from_catalog(2, 8, "ib-ndr", system_id="dgx-h100").bom
    capex = bom.totals(lines)["network_price_usd"]
    fabric_w = sum(ln.power_w for ln in lines if ln.category in ("switch", "optics"))
    assert capex > 0 and fabric_w > 0
    energy = 5.0 + fabric_w * 1.3 * 31_557.6 / 3.6e6 * 0.10
    assert parts.servers_usd == pytest.approx(100.0, rel=REL)
    assert parts.energy_usd == pytest.approx(energy, rel=REL)
    assert parts.network_usd == pytest.approx(capex / 2000, rel=REL)
    assert parts.total_usd == pytest.approx(100.0 + energy + capex / 2000, rel=REL)


def test_the_built_in_dgx_h100_price_is_taken_net_of_the_adapters_it_ships_with() -> None:
    # $270,000 as shipped (SemiAnalysis) - 8 x ConnectX-7 NDR ($2,000) - 2 x dual-port CX-7 ($2,500)
    system = catalog.system("dgx-h100")
    assert server_price_usd(system, None) == pytest.approx(270_000 - 8 * 2_000 - 2 * 2_500, rel=REL)
    assert server_price_usd(system, 123.0) == 123.0


def test_the_rental_model_stays_the_default_and_prices_gpu_hours(make_scenario: Any) -> None:
    r = simulate(make_scenario())
    expected = r.time_to_train_s / 3600 * 32 * 2.5  # 4 nodes x 8 GPUs at the $2.5/GPU-h default
    assert r.cost_usd == pytest.approx(expected, rel=REL)
    assert r.to_json()["cost_breakdown_usd"] == {"rental": r.cost_usd}


def test_a_simulated_owner_run_reports_its_parts_and_total(make_scenario: Any) -> None:
    r = simulate(owner(make_scenario))
    obj = r.to_json()
    assert set(obj["cost_breakdown_usd"]) == {"servers", "network", "energy"}
    assert obj["cost_usd"] == pytest.approx(sum(obj["cost_breakdown_usd"].values()), rel=REL)
    # The fabric's own power (switches, optics) x PUE x wall time comes on top of the servers' energy.
    fabric_w = fabric_power_w(network_design(r.scenario, r.resolved).bom)
    fabric_kwh = fabric_w * 1.3 * r.time_to_train_s / 3.6e6
    energy = (r.energy_kwh + fabric_kwh) * 0.0806
    assert obj["cost_breakdown_usd"]["energy"] == pytest.approx(energy, rel=REL)
    servers = 4 * 249_000 * r.time_to_train_s / (4 * YEAR_S)
    assert obj["cost_breakdown_usd"]["servers"] == pytest.approx(servers, rel=REL)


def test_a_tcp_fabric_costs_less_network_capex_than_ib_ndr_at_equal_nodes(make_scenario: Any) -> None:
    def capex(fabric: str) -> float:
        s = owner(make_scenario, fabric=fabric, nodes=16)
        return bom.totals(network_design(s, resolve(s)).bom)["network_price_usd"]

    ib, tcp = capex("ib-ndr"), capex("tcp-100g")
    # 100G switches ($10k) and NICs ($900) against NDR's ($30k, $2,000): well over 10 % apart.
    assert tcp < 0.9 * ib


def test_a_bluefield_3_dpu_replaces_the_north_south_adapter_in_the_bom(make_scenario: Any) -> None:
    def design(dpu: str) -> Any:
        s = owner(make_scenario, dpu=dpu)
        return network_design(s, resolve(s))

    plain, dpu = design("none"), design("bluefield-3")
    storage = [ln for ln in dpu.bom if ln.network == "storage"]
    adapters = {ln.item: ln.quantity for ln in storage if ln.category == "adapter"}
    assert adapters == {catalog.nic("bf3-b3220").name: 4 * 2}  # 2 north-south adapters per DGX H100
    plain_items = {ln.item for ln in plain.bom}
    assert catalog.nic("cx7-2p-400g").name in plain_items
    assert catalog.nic("bf3-b3220").name not in plain_items
    # Each DPU's BMC takes an out-of-band port: 4 nodes x 2 DPUs more.
    assert dpu.oob.ports == plain.oob.ports + 8
    assert bom.totals(dpu.bom)["network_price_usd"] != bom.totals(plain.bom)["network_price_usd"]


@pytest.mark.parametrize(
    "cost",
    [
        "model: lease",
        "amortization_years: 0",
        "usd_per_kwh: -0.1",
        "server_usd: -5",
        "amortisation_years: 4",
    ],
)
def test_bad_cost_values_are_spec_errors(cost: str) -> None:
    text = (
        "cluster: {system: dgx-h100, nodes: 4}\n"
        "job: {model: resnet50, global_batch: 1024, samples_to_train: 1.28e6}\n"
        f"cost: {{{cost}}}\n"
    )
    with pytest.raises(SpecError, match="cost"):
        load_scenario("scenario.yaml", text=text)


def test_an_unpriced_server_under_the_owner_model_asks_for_server_usd(make_scenario: Any) -> None:
    s = make_scenario(cluster={"system": "dgx-b200"}, cost={"model": "owner"})
    with pytest.raises(SpecError, match=r"cost\.server_usd"):
        owner_cost(s, resolve(s), wall_s=3600.0, energy_kwh=1.0)
