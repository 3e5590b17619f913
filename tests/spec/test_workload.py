"""ModelSpec rules and derived numbers."""

from __future__ import annotations

import pytest

from fabrictwin.errors import SpecError
from fabrictwin.spec.load import load_text
from fabrictwin.spec.workload import ModelSpec

BASE = """\
id: toy
name: Toy
family: moe-decoder
parameters: 1e9
active_parameters: 3e8
layers: 4
hidden: 512
heads: 8
kv_heads: 2
unit: token
forward_flop_per_unit: 0.6GFLOP
activation_bytes_per_unit_per_layer: 17KB
experts: 8
top_k: 2
"""


def test_a_model_loads_with_units_and_derived_costs() -> None:
    model = load_text(BASE, ModelSpec)
    assert model.activation_bytes_per_unit_per_layer == 17e3
    assert model.train_flop_per_unit == pytest.approx(1.8e9)
    assert model.params_per_token == 3e8


def test_a_dense_model_touches_all_its_parameters_per_token() -> None:
    model = load_text(BASE.replace("active_parameters: 3e8\n", ""), ModelSpec)
    assert model.params_per_token == 1e9


def test_top_k_above_the_expert_count_is_rejected() -> None:
    with pytest.raises(SpecError) as info:
        load_text(BASE.replace("top_k: 2", "top_k: 9"), ModelSpec, name="m.yaml")
    assert str(info.value) == "m.yaml:1 top_k (9) cannot exceed experts (8)"


def test_heads_must_be_a_multiple_of_kv_heads() -> None:
    with pytest.raises(SpecError, match=r"heads \(8\) must be a multiple of kv_heads \(3\)"):
        load_text(BASE.replace("kv_heads: 2", "kv_heads: 3"), ModelSpec)


def test_an_unknown_family_suggests_the_closest() -> None:
    with pytest.raises(SpecError, match="did you mean 'decoder'"):
        load_text(BASE.replace("family: moe-decoder", "family: decodr"), ModelSpec)
