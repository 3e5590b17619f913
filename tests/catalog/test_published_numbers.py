"""Spot checks of catalog numbers against the published figures they cite.

Tolerance: datasheet numbers must match to 0.5 % (rounding in the datasheet); derived numbers
(model FLOPs vs published training compute) to the tolerance stated beside each test.
"""

from __future__ import annotations

import pytest

from fabrictwin import catalog

DATASHEET_RTOL = 0.005
"""Datasheets print 3-4 significant digits; 0.5 % covers their rounding and nothing more."""

T, G = 1e12, 1e9


@pytest.mark.parametrize(
    ("gpu", "precision", "published"),
    [
        ("h100-sxm", "bf16", 989e12),  # H100 datasheet: 1,979 TFLOPS with sparsity -> 989 dense
        ("h100-sxm", "fp8", 1979e12),  # 3,958 sparse
        ("h100-sxm", "fp64", 34e12),
        ("h200-sxm", "bf16", 989e12),  # same tensor cores as H100 SXM
        ("a100-80gb", "bf16", 312e12),
        ("a100-40gb", "tf32", 156e12),
        ("v100-sxm2", "fp16", 125e12),
        ("b200", "bf16", 2.25e15),  # HGX B200: 36 PFLOPS sparse / 8 GPUs / 2
        ("b200", "fp4", 9e15),
        ("gb200", "bf16", 2.5e15),  # GB200 NVL72: 360 PFLOPS sparse / 72 / 2
    ],
)
def test_dense_peak_flops_match_the_datasheet(gpu: str, precision: str, published: float) -> None:
    assert catalog.gpu(gpu).peak_flops[precision] == pytest.approx(published, rel=DATASHEET_RTOL)  # type: ignore[index]


@pytest.mark.parametrize(
    ("gpu", "hbm_Bps", "nvlink_bidir_Bps"),
    [
        ("v100-sxm2", 900 * G, 300 * G),
        ("a100-80gb", 2039 * G, 600 * G),
        ("h100-sxm", 3.35 * T, 900 * G),
        ("h200-sxm", 4.8 * T, 900 * G),
        ("b200", 8 * T, 1.8 * T),
        ("gb200", 8 * T, 1.8 * T),
    ],
)
def test_memory_and_nvlink_bandwidth_match_the_datasheet(
    gpu: str, hbm_Bps: float, nvlink_bidir_Bps: float
) -> None:
    spec = catalog.gpu(gpu)
    assert spec.hbm_Bps == pytest.approx(hbm_Bps, rel=DATASHEET_RTOL)
    assert 2 * spec.nvlink_Bps == pytest.approx(nvlink_bidir_Bps, rel=DATASHEET_RTOL)


def test_hbm_capacity_is_at_least_what_nvidia_smi_reports() -> None:
    # nvidia-smi: 81,559 MiB on H100 80GB, 143,771 MiB on H200 141GB (the usable part of the HBM)
    assert catalog.gpu("h100-sxm").hbm_bytes >= 81559 * 2**20
    assert catalog.gpu("h200-sxm").hbm_bytes >= 143771 * 2**20
    assert catalog.gpu("h100-sxm").hbm_bytes == pytest.approx(81559 * 2**20, rel=0.01)


@pytest.mark.parametrize(
    ("fabric", "gbps"),
    [("ib-hdr", 200), ("ib-ndr", 400), ("ib-xdr", 800), ("roce-400g", 400), ("tcp-25g", 25)],
)
def test_fabric_line_rates_are_the_named_rates(fabric: str, gbps: float) -> None:
    assert catalog.fabric(fabric).link_bps == gbps * 1e9


def test_ndr_carries_50_gigabytes_per_second_each_way() -> None:
    ndr = catalog.fabric("ib-ndr")
    assert ndr.link_bps / 8 == 50e9  # fabric-and-network-models.md section 3.5


@pytest.mark.parametrize(
    ("switch", "ports", "gbps"), [("qm9700", 64, 400), ("q3400", 144, 800), ("sn5600", 128, 400)]
)
def test_switch_radix_matches_the_superpod_tables(switch: str, ports: int, gbps: float) -> None:
    spec = catalog.switch(switch)
    assert (spec.ports, spec.port_bps) == (ports, gbps * 1e9)


def test_dgx_h100_has_eight_400g_compute_nics_and_two_storage_adapters() -> None:
    dgx = catalog.system("dgx-h100")
    assert (dgx.gpus, dgx.compute_nics, dgx.storage_nics) == (8, 8, 2)
    assert catalog.nic(dgx.compute_nic).port_bps == 400e9
    assert dgx.power_w == pytest.approx(10.2e3)


def test_bluefield_3_dpus_have_16_arm_cores_and_the_supernic_8() -> None:
    assert catalog.nic("bf3-b3220").arm_cores == 16
    assert catalog.nic("bf3-b3240").arm_cores == 16
    assert catalog.nic("bf3-b3140h").arm_cores == 8
    assert catalog.nic("bf3-b3220").dram_bytes == 32 * 2**30


# GPT-3 paper Table D.1: 3.14e23 training FLOPs for 300B tokens. Our forward counts attention and
# the LM head, which the paper's 6*N*D omits, so we allow 3 %.
GPT3_RTOL = 0.03
# Llama 3 paper section 3.3.1: 3.8e25 FLOPs for 405B on 15.6T tokens; stated to two digits, and our
# count adds attention (~4 % at 8K sequence), so 5 %.
LLAMA_RTOL = 0.05


def test_gpt3_training_compute_matches_the_paper() -> None:
    gpt3 = catalog.model("gpt3-175b")
    assert gpt3.train_flop_per_unit * 300e9 == pytest.approx(3.14e23, rel=GPT3_RTOL)


def test_llama3_405b_training_compute_matches_the_paper() -> None:
    llama = catalog.model("llama3-405b")
    assert llama.train_flop_per_unit * 15.6e12 == pytest.approx(3.8e25, rel=LLAMA_RTOL)


def test_resnet50_forward_flops_match_torchvision() -> None:
    # torchvision reports 4.09 GFLOPS counted as multiply-adds -> 8.18 GFLOP
    assert catalog.model("resnet50").forward_flop_per_unit == pytest.approx(2 * 4.09e9, rel=DATASHEET_RTOL)


@pytest.mark.parametrize(
    ("model", "published"),
    [
        ("llama3-8b", 8.03e9),
        ("llama3-70b", 70.6e9),
        ("llama3-405b", 405e9),
        ("gpt3-175b", 175e9),
        ("mixtral-8x7b", 46.7e9),
        ("bert-large", 340e6),
        ("resnet50", 25.6e6),
    ],
)
def test_parameter_counts_match_the_published_totals(model: str, published: float) -> None:
    # published totals are rounded to 2-3 digits (BERT's "340M" is 334M counted): 2 %
    assert catalog.model(model).parameters == pytest.approx(published, rel=0.02)


def test_mixtral_activates_about_13b_parameters_per_token() -> None:
    assert catalog.model("mixtral-8x7b").params_per_token == pytest.approx(12.9e9, rel=0.01)
