"""Every scenario in examples/ loads and simulates (the files users copy first)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabrictwin.spec.scenario import load_scenario
from fabrictwin.twin.simulate import simulate

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SCENARIOS = sorted(p for p in EXAMPLES.glob("*.yaml") if not p.name.startswith("sweep"))


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_the_example_simulates(path: Path) -> None:
    result = simulate(load_scenario(path))
    assert result.step_time_s > 0 and 0 < result.mfu < 1


def test_the_inline_llama2_example_is_near_the_published_step():
    """NeMo 24.07: 1,707 tokens/s/GPU on 64 H100 = 4.80 s per step (the file's header)."""
    result = simulate(load_scenario(EXAMPLES / "llama2-70b-fp8-h100.yaml"))
    assert result.step_time_s == pytest.approx(128 * 4096 / (1707 * 64), rel=0.15)
