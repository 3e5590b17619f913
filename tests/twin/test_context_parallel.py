"""Context parallelism: each sequence split over cp GPUs (Megatron-Core), ring of keys/values."""

from __future__ import annotations

import pytest

from fabrictwin.errors import Infeasible
from fabrictwin.spec.scenario import ScenarioSpec
from fabrictwin.twin.simulate import derive_layout, simulate


def _scenario(
    cp: int, nodes: int = 1, seq: int = 4096, tp: int = 1, gbs: int = 64, recompute: str = "selective"
) -> ScenarioSpec:
    return ScenarioSpec.model_validate(
        {
            "name": f"cp{cp}",
            "cluster": {"system": "dgx-h100", "nodes": nodes, "fabric": "ib-ndr"},
            "job": {"model": "llama3-8b", "global_batch": gbs, "samples_to_train": 1e5, "seq_len": seq},
            "parallelism": {
                "tp": tp,
                "cp": cp,
                "zero_stage": 1,
                "microbatch_size": 1,
                "recompute": recompute,
            },
        }
    )


def test_cp_is_carved_out_of_data_parallel():
    assert derive_layout(_scenario(2), 8).dp == 4
    assert derive_layout(_scenario(4, tp=2), 8).dp == 1


def test_gpus_and_sequence_must_divide_by_cp():
    with pytest.raises(Infeasible, match="tp\\*pp\\*cp"):
        derive_layout(_scenario(3), 8)
    with pytest.raises(Infeasible, match="sequence length 4094 is not divisible by 2 x cp"):
        simulate(_scenario(2, seq=4094))


def test_cp_halves_activations_per_micro_batch_and_keeps_the_work_per_gpu():
    one, two = simulate(_scenario(1)), simulate(_scenario(2))
    assert two.memory.activations == pytest.approx(one.memory.activations / 2, rel=1e-6)
    # same tokens per GPU per step (dp halves, each GPU holds half of each sequence)
    assert two.breakdown_s["compute"] == pytest.approx(one.breakdown_s["compute"], rel=0.02)


def test_the_ring_hides_behind_attention_in_a_server_but_not_across_servers():
    inside = simulate(_scenario(8, seq=65536, gbs=8, recompute="full"))
    across = simulate(_scenario(16, nodes=2, seq=65536, gbs=8, recompute="full"))
    assert inside.breakdown_s.get("comm:cp_ring", 0.0) == pytest.approx(0.0, abs=1e-9)
    assert across.breakdown_s.get("comm:cp_ring", 0.0) > 0.0
    assert across.layout.dp == 1 and inside.layout.dp == 1


def test_the_ring_carries_one_tensor_parallel_share_of_the_keys_and_values():
    """With tp 8 each GPU sends kv_heads / 8 heads (here one): far less than the full width."""
    tp8 = simulate(_scenario(16, nodes=16, seq=65536, tp=8, gbs=8, recompute="full"))
    tp1 = simulate(_scenario(16, nodes=2, seq=65536, tp=1, gbs=8, recompute="full"))
    assert tp8.breakdown_s.get("comm:cp_ring", 0.0) < tp1.breakdown_s["comm:cp_ring"] / 4


def test_alpha_beta_sends_inside_a_server_over_nvlink():
    base = _scenario(8, seq=65536, gbs=8, recompute="full").model_dump()
    base["cluster"]["collectives"] = "alpha-beta"
    result = simulate(ScenarioSpec.model_validate(base))
    assert result.breakdown_s.get("comm:cp_ring", 0.0) == pytest.approx(0.0, abs=1e-9)
