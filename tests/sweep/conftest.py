"""Shared sweep fixtures: a small, fast base scenario (8-node BERT-Large, analytic collectives)."""

from __future__ import annotations

import pytest

from fabrictwin.spec.scenario import ScenarioSpec

BASE = {
    "name": "bert",
    "cluster": {"system": "dgx-h100", "nodes": 8, "fabric": "ib-ndr", "collectives": "nccl"},
    "job": {"model": "bert-large", "global_batch": 256, "samples_to_train": 1.0e6, "seq_len": 512},
}


@pytest.fixture
def base_data() -> dict[str, object]:
    return BASE


@pytest.fixture
def base() -> ScenarioSpec:
    return ScenarioSpec.model_validate(BASE)
