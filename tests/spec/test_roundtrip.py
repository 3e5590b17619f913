"""Properties: what a spec dumps, the loader reads back unchanged; units convert exactly."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from fabrictwin import catalog, load_cluster
from fabrictwin.spec.base import Spec
from fabrictwin.spec.cluster import ClusterSpec
from fabrictwin.spec.load import load_text
from fabrictwin.units import parse_quantity

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize("kind", ["gpu", "cpu", "nic", "switch", "fabric", "system", "model"])
def test_every_catalog_entry_survives_a_dump_and_reload(kind: str) -> None:
    for entry in catalog.entries(kind):
        text = yaml.safe_dump(entry.model_dump(mode="json"), sort_keys=False)
        assert load_text(text, type(entry)) == entry


def test_the_reference_superpod_file_loads_and_round_trips() -> None:
    cluster = load_cluster(DATA / "superpod-h100.yaml")
    assert (cluster.nodes, cluster.fabric.compute.scalable_unit_nodes, cluster.dpu.per_node) == (127, 32, 2)
    text = yaml.safe_dump(cluster.model_dump(mode="json"))
    assert load_text(text, ClusterSpec) == cluster


@settings(max_examples=60, deadline=None)
@given(
    st.floats(min_value=1e-3, max_value=1e6, allow_nan=False),
    st.sampled_from(
        [("GiB", "bytes", 2**30), ("MB", "bytes", 1e6), ("us", "time", 1e-6), ("Gb/s", "bits_per_s", 1e9)]
    ),
)
def test_a_number_with_a_unit_is_the_number_times_the_unit(
    number: float, unit: tuple[str, str, float]
) -> None:
    symbol, dimension, factor = unit
    assert parse_quantity(f"{number!r}{symbol}", dimension) == pytest.approx(number * factor, rel=1e-12)


_RESERVED = {"on", "true", "false", "null"}
"""The field itself, and the words YAML 1.2 reads as booleans or null."""


class _Flag(Spec):
    """One boolean field."""

    on: bool


@settings(max_examples=40, deadline=None)
@given(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12).filter(
        lambda k: k not in _RESERVED
    )
)
def test_any_unknown_key_is_rejected_and_named(key: str) -> None:
    with pytest.raises(Exception) as info:
        load_text(f"on: true\n{key}: 1\n", _Flag, name="f.yaml")
    assert str(info.value).startswith(f"f.yaml:2 {key}: unknown key {key!r}")
