"""Sweep files: what loads, and the located messages of what does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabrictwin.errors import SpecError
from fabrictwin.spec.sweep import SweepSpec, base_scenario, load_sweep
from fabrictwin.twin.compare import SHORTCUTS
from fabrictwin.twin.sweep import load_space

SCENARIO = """\
cluster: {nodes: 8, fabric: ib-ndr}
job: {model: bert-large, global_batch: 256, samples_to_train: 1000000}
"""


def test_a_sweep_with_a_base_file_loads_it_relative_to_the_sweep_file(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "base.yaml").write_text(SCENARIO)
    sweep = tmp_path / "sub" / "space.yaml"
    sweep.write_text("base: base.yaml\naxes:\n  fabric: [ib-ndr, tcp-100g]\n  nodes: [4, 8]\n")
    spec, base = load_space(sweep)
    assert spec.points == 4
    assert spec.combine == "product"
    assert spec.objectives == ["time_to_train", "cost", "energy"]
    assert base.cluster.nodes == 8 and base.job.model == "bert-large"


def test_an_inline_scenario_is_the_base() -> None:
    text = "axes: {dpu: [none, bluefield-3]}\nscenario:\n" + "".join(
        f"  {ln}\n" for ln in SCENARIO.splitlines()
    )
    spec = load_sweep("s.yaml", text=text, shortcuts=SHORTCUTS)
    assert base_scenario(spec, "s.yaml").cluster.fabric == "ib-ndr"


def test_an_unknown_axis_is_located_by_file_line_and_path_with_a_suggestion() -> None:
    text = "base: b.yaml\naxes:\n  fabric: [ib-ndr]\n  fabrc: [tcp-100g]\n"
    with pytest.raises(SpecError) as err:
        load_sweep("space.yaml", text=text, shortcuts=SHORTCUTS)
    assert str(err.value).startswith("space.yaml:4 axes.fabrc:")
    assert "did you mean 'fabric'" in str(err.value)


def test_a_dotted_axis_must_name_a_scenario_field() -> None:
    ok = "base: b.yaml\naxes:\n  cost.usd_per_gpu_hour: [2.0, 3.0]\n  cluster.nics_per_node: [4, 8]\n"
    assert load_sweep("s.yaml", text=ok, shortcuts=SHORTCUTS).points == 4
    for bad in ("cluster.nodez", "cluster.nodes.count", "nowhere"):
        with pytest.raises(SpecError, match=f"axes.{bad}: '{bad}' is neither"):
            load_sweep("s.yaml", text=f"base: b.yaml\naxes:\n  {bad}: [1]\n", shortcuts=SHORTCUTS)


def test_zip_needs_axes_of_equal_length() -> None:
    text = "base: b.yaml\ncombine: zip\naxes:\n  fabric: [ib-ndr, tcp-100g]\n  nodes: [4]\n"
    with pytest.raises(SpecError, match="zip needs axes of equal length, got fabric: 2, nodes: 1"):
        load_sweep("s.yaml", text=text)


def test_exactly_one_of_base_and_scenario_is_given() -> None:
    with pytest.raises(SpecError, match="exactly one of base"):
        load_sweep("s.yaml", text="axes: {fabric: [ib-ndr]}\n")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("base: b.yaml\naxes: {}\n", "axes"),
        ("base: b.yaml\naxes: {fabric: []}\n", "has no values"),
        ("base: b.yaml\naxes: {fabric: [ib-ndr, ib-ndr]}\n", "repeats a value"),
        ("base: b.yaml\naxes: {fabric: [ib-ndr]}\nobjectives: [speed]\n", "objectives[0]"),
        ("base: b.yaml\naxes: {fabric: [ib-ndr]}\ncombine: cross\n", "combine"),
        ("base: b.yaml\naxis: {fabric: [ib-ndr]}\n", "axis"),
    ],
)
def test_bad_sweep_files_raise_a_spec_error_naming_the_part(text: str, message: str) -> None:
    with pytest.raises(SpecError) as err:
        load_sweep("s.yaml", text=text)
    assert message in str(err.value)
    assert str(err.value).startswith("s.yaml:")


def test_a_missing_base_file_is_a_spec_error_naming_it(tmp_path: Path) -> None:
    sweep = tmp_path / "space.yaml"
    sweep.write_text("base: missing.yaml\naxes: {fabric: [ib-ndr]}\n")
    with pytest.raises(SpecError, match=r"missing\.yaml"):
        load_space(sweep)


def test_points_count_product_and_zip() -> None:
    axes = {"fabric": ["ib-ndr", "tcp-100g", "roce-400g"], "nics": [1, 2, 8]}
    assert SweepSpec(base="b.yaml", axes=axes).points == 9
    assert SweepSpec(base="b.yaml", axes=axes, combine="zip").points == 3
