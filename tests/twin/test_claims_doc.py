"""docs/claims.md quotes the twin; these tests keep its headline numbers in step with the model.

The page is hand-written prose around numbers from `make demo`. When a model change moves a
quoted number by more than the rounding of the page (half a percentage point, plus slack for a
later re-run), the test fails and the page must be regenerated, so the claims page never
silently contradicts the twin.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fabrictwin.spec.scenario import load_scenario
from fabrictwin.twin.claims import A100_DESIGNS, A100_REFERENCE, speed_check

ROOT = Path(__file__).resolve().parents[2]
CLAIMS = ROOT / "docs" / "claims.md"
SEEDS = ROOT / "examples" / "seed-claims"
TOLERANCE_POINTS = 1.0  # the page rounds to whole percent


def _a100_row(design: str) -> list[str]:
    """Cells of the DGX A100 table row for ``design`` (e.g. 'TCP 100G x2')."""
    section = CLAIMS.read_text().split("## One generation earlier", 1)[1]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] == design:
            return cells
    raise AssertionError(f"no row {design!r} in the DGX A100 table of {CLAIMS}")


def _percent(cell: str) -> float:
    match = re.search(r"(\d+(?:\.\d+)?)%", cell)
    assert match, f"no percentage in {cell!r}"
    return float(match.group(1))


@pytest.mark.parametrize(
    ("scenario", "design", "column"),
    [
        ("resnet50-256gpu.yaml", "tcp-100g x2", 2),
        ("resnet50-256gpu.yaml", "tcp-100g x4", 2),
        ("bert-large-1024gpu.yaml", "tcp-100g x8", 4),
        ("bert-large-1024gpu.yaml", "tcp-100g x4", 4),
    ],
)
def test_the_dgx_a100_savings_quoted_in_the_claims_page_match_the_twin(scenario, design, column):
    check = speed_check(load_scenario(SEEDS / scenario), None, A100_DESIGNS, A100_REFERENCE)
    predicted = 100.0 * check.reduction_vs(design)
    label = design.replace("tcp-100g", "TCP 100G")
    quoted = _percent(_a100_row(label)[column])
    assert abs(predicted - quoted) <= TOLERANCE_POINTS, (
        f"docs/claims.md quotes {quoted}% for {scenario} {design}; the twin now predicts "
        f"{predicted:.1f}%: rerun `make demo` and update the page"
    )
