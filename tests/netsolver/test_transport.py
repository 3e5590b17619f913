"""Transport costs: headers, loss, TCP limits, host CPU, GPUDirect vs staging."""

from __future__ import annotations

import math

import pytest

from fabrictwin import catalog
from fabrictwin.errors import SpecError
from fabrictwin.netsolver.transport import (
    TCP_RTO_MIN_S,
    header_efficiency,
    staged_Bps,
    transport_model,
)


def test_header_efficiency_matches_the_catalog_fabric_efficiency():
    # The catalog derives efficiency from the same packet formats (IB 4096/(4096+26), RoCE 4096/4178).
    assert header_efficiency("infiniband") == pytest.approx(catalog.fabric("ib-ndr").efficiency, abs=1e-4)
    assert header_efficiency("roce") == pytest.approx(catalog.fabric("roce-400g").efficiency, abs=1e-4)


def test_infiniband_is_lossless_and_roce_go_back_n_collapses_near_one_percent_loss():
    ib = transport_model(catalog.fabric("ib-ndr"))
    assert ib.goodput_fraction(0.01) == 1.0
    roce = transport_model(catalog.fabric("roce-400g"))
    # RoCE has no link-level retransmission: GBN at 1% loss and a 10 us RTT:
    # W = 49 GB/s x 10 us / 4096 B = 120 packets -> (0.99) / (1 + 119 x 0.01) = 0.45.
    lossy = roce
    assert roce.goodput_fraction(0.0) == 1.0
    frac = lossy.goodput_fraction(0.01, rtt_s=10e-6)
    window = lossy.effective_Bps * 10e-6 / 4096
    assert frac == pytest.approx(0.99 / (1 + (window - 1) * 0.01))
    assert frac < 0.5  # reference 4.4: "drops to nearly zero when loss exceeds 1%" (with longer RTTs)
    assert lossy.goodput_fraction(0.01, rtt_s=100e-6) < 0.1


def test_tcp_is_capped_by_its_socket_streams_and_pays_cpu_cycles_per_byte():
    tcp = transport_model(catalog.fabric("tcp-100g"))
    # one NCCL socket stream at ~42 Gb/s per core (reference D-13): 5.25 GB/s of 12.5 GB/s,
    # matching NCCL-over-TCP busbw of 4-6 GB/s on 100 Gb/s (reference D-15)
    assert tcp.effective_Bps == pytest.approx(5.25e9)
    assert 4e9 <= tcp.effective_Bps <= 6e9
    cores = tcp.host_cores(5.25e9, 3.0e9)
    assert cores == pytest.approx(1.0)  # one ~3 GHz core per saturated stream
    ib = transport_model(catalog.fabric("ib-ndr"))
    assert ib.host_cores(50e9, 3.0e9, ranks=8) == pytest.approx(8.0)  # proxy threads only
    assert ib.cores_per_gbps(3.0e9) == 0.0
    assert tcp.cores_per_gbps(3.0e9) == pytest.approx(1 / 42)  # one core per 42 Gb/s stream


def test_tcp_pays_a_retransmission_timeout_on_tail_loss_and_rdma_does_not():
    tcp = transport_model(catalog.fabric("tcp-100g"))
    assert tcp.rto_penalty_s(1000, 1e-3) == pytest.approx((1 - (1 - 1e-3) ** 1000) * TCP_RTO_MIN_S)
    assert transport_model(catalog.fabric("ib-ndr")).rto_penalty_s(1000, 1e-3) == 0.0
    # Mathis: 8948 B / 50 us x sqrt(1.5) / sqrt(0.01) = 2.19 GB/s of the 5.25 GB/s stream
    mathis = 8948 / 50e-6 * math.sqrt(1.5) / 0.1
    assert tcp.goodput_fraction(1e-2, rtt_s=50e-6) == pytest.approx(mathis / 5.25e9)
    assert tcp.goodput_fraction(1e-4, rtt_s=50e-6) == 1.0  # window-limited rate above the stream cap


def test_forcing_tcp_onto_an_ib_fabric_rescales_by_header_efficiency():
    forced = transport_model(catalog.fabric("ib-ndr"), transport="tcp")
    assert forced.transport == "tcp"
    assert forced.efficiency == pytest.approx(
        catalog.fabric("ib-ndr").efficiency * header_efficiency("tcp") / header_efficiency("infiniband")
    )


def test_host_staging_is_bounded_by_pcie_while_gpudirect_is_bounded_by_the_nic():
    assert staged_Bps(50e9, 32e9, gpudirect=True) == 50e9
    assert staged_Bps(50e9, 32e9, gpudirect=False) == pytest.approx(32e9 * 0.88)
    with pytest.raises(SpecError):
        staged_Bps(0.0, 1.0, gpudirect=True)


def test_invalid_loss_rates_are_rejected():
    with pytest.raises(SpecError):
        transport_model(catalog.fabric("ib-ndr")).goodput_fraction(1.5)
    assert math.isinf(transport_model(catalog.fabric("ib-ndr")).stream_cap_Bps)
