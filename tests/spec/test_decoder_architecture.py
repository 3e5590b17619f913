"""An inline decoder shape derives the zoo's numbers (DecoderArchitecture)."""

from __future__ import annotations

import pytest

from fabrictwin import catalog
from fabrictwin.spec.scenario import ScenarioSpec
from fabrictwin.spec.workload import DecoderArchitecture

LLAMA3_8B = DecoderArchitecture(
    name="llama3-8b-shape", layers=32, hidden=4096, heads=32, kv_heads=8, ffn_hidden=14336,
    gated_mlp=True, vocab=128256, seq_len=8192,
)  # fmt: skip


def test_the_llama3_8b_shape_gives_the_zoo_entry():
    zoo = catalog.model("llama3-8b")
    got = LLAMA3_8B.model_spec()
    assert got.parameters == pytest.approx(zoo.parameters, rel=0.001)
    assert got.forward_flop_per_unit == pytest.approx(zoo.forward_flop_per_unit, rel=0.001)
    assert got.activation_bytes_per_unit_per_layer == zoo.activation_bytes_per_unit_per_layer


def test_the_gpt3_shape_gives_the_zoo_forward_flops():
    gpt3 = DecoderArchitecture(name="gpt3", layers=96, hidden=12288, heads=96, vocab=50257, seq_len=2048)
    assert gpt3.model_spec().forward_flop_per_unit == pytest.approx(
        catalog.model("gpt3-175b").forward_flop_per_unit, rel=0.001
    )


def test_a_scenario_takes_an_inline_model_and_a_bad_shape_names_the_rule():
    job = {"global_batch": 8, "samples_to_train": 80}
    spec = {"name": "x", "cluster": {"system": "dgx-h100", "nodes": 1, "fabric": "ib-ndr"}}
    ok = ScenarioSpec.model_validate({**spec, "job": {**job, "model": LLAMA3_8B.model_dump()}})
    assert ok.job.model_name == "llama3-8b-shape"
    bad = {**LLAMA3_8B.model_dump(), "kv_heads": 5}
    with pytest.raises(ValueError, match="kv_heads"):
        ScenarioSpec.model_validate({**spec, "job": {**job, "model": bad}})
