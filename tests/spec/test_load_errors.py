"""Every error path of spec.load, with the exact message a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import Field

from fabrictwin.errors import SpecError
from fabrictwin.spec.base import Spec
from fabrictwin.spec.hardware import GpuSpec
from fabrictwin.spec.load import format_path, load_mapping, load_model, load_text, parse
from fabrictwin.spec.quantity import Bytes, Seconds


class Link(Spec):
    """A toy spec for the loader tests."""

    rate_bps: float = Field(gt=0)
    latency_s: Seconds = 1e-6
    kind: str = "ib"


class Node(Spec):
    """A toy spec with nesting, a list and a dict."""

    name: str
    memory_bytes: Bytes = Field(gt=0)
    links: list[Link] = []
    tags: dict[str, int] = {}


GOOD = """\
name: n1
memory_bytes: 80GiB
links:
  - rate_bps: 4e11
    latency_s: 2.5us
"""


def _error(text: str, model: type[Spec] = Node, name: str = "node.yaml") -> SpecError:
    with pytest.raises(SpecError) as info:
        load_text(text, model, name=name)
    return info.value


def test_a_good_document_loads_with_units_converted() -> None:
    node = load_text(GOOD, Node)
    assert node.memory_bytes == 80 * 1024**3
    assert node.links[0].latency_s == pytest.approx(2.5e-6)


def test_an_unknown_key_is_an_error_with_a_did_you_mean() -> None:
    err = _error("name: n\nmemory_bytes: 1GB\nmemory_byte: 2GB\n")
    assert str(err) == "node.yaml:3 memory_byte: unknown key 'memory_byte'; did you mean 'memory_bytes'?"
    assert (err.file, err.line, err.path) == ("node.yaml", 3, "memory_byte")


def test_an_unknown_key_far_from_any_field_lists_the_known_keys() -> None:
    err = _error("name: n\nmemory_bytes: 1GB\nzzz: 1\n")
    assert str(err) == "node.yaml:3 zzz: unknown key 'zzz'; known: links, memory_bytes, name, tags"


def test_an_unknown_key_inside_a_list_item_names_the_index_and_the_nested_fields() -> None:
    err = _error("name: n\nmemory_bytes: 1GB\nlinks:\n  - rate_bps: 1\n  - rate_bps: 2\n    latncy_s: 1us\n")
    assert str(err) == "node.yaml:6 links[1].latncy_s: unknown key 'latncy_s'; did you mean 'latency_s'?"


def test_a_wrong_type_names_the_value_and_the_rule() -> None:
    err = _error("name: n\nmemory_bytes: 1GB\ntags: {a: many}\n")
    assert str(err) == (
        "node.yaml:3 tags.a: input should be a valid integer, "
        "unable to parse string as an integer, got 'many'"
    )


def test_a_bad_unit_lists_the_accepted_units() -> None:
    err = _error("name: n\nmemory_bytes: 80GX\n")
    assert (
        str(err)
        == "node.yaml:2 memory_bytes: '80GX': unit 'GX' is not a bytes unit (e.g. 80GiB, 64MiB, 1.5TB)"
    )


def test_a_unit_of_the_wrong_dimension_is_rejected() -> None:
    err = _error("name: n\nmemory_bytes: 1GB\nlinks: [{rate_bps: 1, latency_s: 5GB}]\n")
    assert str(err).startswith("node.yaml:3 links[0].latency_s: '5GB': unit 'GB' is not a time unit")


def test_an_out_of_range_value_shows_what_was_written() -> None:
    err = _error("name: n\nmemory_bytes: -1GB\n")
    assert str(err) == "node.yaml:2 memory_bytes: input should be greater than 0, got '-1GB'"


def test_a_missing_required_key_points_at_its_parent() -> None:
    err = _error("name: n\nmemory_bytes: 1GB\nlinks:\n  - latency_s: 1us\n")
    assert str(err) == "node.yaml:4 links[0].rate_bps: required key is missing"


def test_several_broken_rules_are_all_listed_one_per_line() -> None:
    err = _error("memory_bytes: 0\nextra: 1\n")
    lines = str(err).splitlines()
    assert lines[0] == "node.yaml:1 name: required key is missing"
    assert lines[1:] == [
        "  node.yaml:1 memory_bytes: input should be greater than 0, got 0",
        "  node.yaml:2 extra: unknown key 'extra'; known: links, memory_bytes, name, tags",
    ]


def test_a_literal_choice_suggests_the_closest_allowed_value() -> None:
    text = (
        "id: g\nname: G\npeak_flops: {bf16: 1PFLOP/s}\nhbm_bytes: 1GB\nhbm_Bps: 1TB/s\n"
        "nvlink_Bps: 0\npcie_Bps: 64GB/s\ntdp_w: 700W\n"
    )
    load_text(text, GpuSpec)
    err = _error(text.replace("bf16", "bf61"), GpuSpec, "g.yaml")
    assert str(err) == (
        "g.yaml:3 peak_flops.bf61: 'bf61' is not an allowed key; expected 'fp64', 'tf32', 'fp32', "
        "'bf16', 'fp16', 'fp8', 'fp4' or 'int8'; did you mean 'bf16'?"
    )


def test_malformed_yaml_names_the_line() -> None:
    err = _error("name: n\nmemory_bytes: [1GB\n")
    assert err.line == 3 and str(err).startswith("node.yaml:3 malformed YAML:")


def test_a_duplicate_key_is_an_error_instead_of_a_silent_overwrite() -> None:
    err = _error("name: n\nmemory_bytes: 1GB\nname: m\n")
    assert str(err) == "node.yaml:3 name: key 'name' appears twice"


def test_an_empty_document_is_an_error() -> None:
    err = _error("# nothing here\n")
    assert str(err) == "node.yaml:1 the document must be a mapping of keys to values, got empty"


def test_a_list_at_the_top_level_is_an_error() -> None:
    err = _error("- 1\n- 2\n")
    assert str(err) == "node.yaml:1 the document must be a mapping of keys to values, got list"


def test_an_unreadable_file_is_a_spec_error_naming_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(SpecError) as info:
        load_model(missing, Node)
    assert str(info.value).startswith(f"{missing} cannot read the file:")


def test_a_file_on_disk_is_read_and_named_in_messages(tmp_path: Path) -> None:
    path = tmp_path / "node.yaml"
    path.write_text("name: n\nmemory_bytes: 0\n", encoding="utf-8")
    with pytest.raises(SpecError) as info:
        load_model(path, Node)
    assert str(info.value) == f"{path}:2 memory_bytes: input should be greater than 0, got 0"


def test_a_path_prefix_is_prepended_for_embedded_documents() -> None:
    with pytest.raises(SpecError) as info:
        load_model("s.yaml", Node, text="name: n\nmemory_bytes: 0\n", path_prefix="cluster.node")
    assert str(info.value) == "s.yaml:2 cluster.node.memory_bytes: input should be greater than 0, got 0"


def test_load_mapping_gives_the_raw_data_and_the_line_of_every_key() -> None:
    doc = load_mapping("node.yaml", text=GOOD)
    assert doc.data["links"][0]["latency_s"] == "2.5us"
    assert doc.line_of(("links", 0, "latency_s")) == 5
    assert doc.line_of(("links", 0)) == 4
    assert doc.line_of(("links", 0, "not-there")) == 4  # nearest enclosing location
    assert doc.line_of(()) == 1


def test_a_custom_schema_raises_located_errors_through_the_document() -> None:
    doc = load_mapping("plan.yaml", text=GOOD)
    err = doc.error(("links", 0, "rate_bps"), "rate must be a power of two")
    assert str(err) == "plan.yaml:4 links[0].rate_bps: rate must be a power of two"


def test_validating_one_part_of_a_document_keeps_its_location() -> None:
    doc = load_mapping("plan.yaml", text="steps:\n  - rate_bps: 1\n  - rate_bps: -1\n")
    assert doc.validate(Link, at=("steps", 0)).rate_bps == 1
    with pytest.raises(SpecError) as info:
        doc.validate(Link, at=("steps", 1))
    assert str(info.value) == "plan.yaml:3 steps[1].rate_bps: input should be greater than 0, got -1"


def test_parse_accepts_documents_of_any_shape() -> None:
    assert parse("x.yaml", text="- 1\n- 2\n").data == [1, 2]


def test_format_path_writes_indices_in_brackets() -> None:
    assert format_path(("fabric", "planes", 2, "nic")) == "fabric.planes[2].nic"
    assert format_path((0, "a"), "root") == "root[0].a"
    assert format_path(()) == ""


def test_only_true_and_false_are_booleans_so_no_and_on_stay_words() -> None:
    data = parse("x.yaml", text="on: yes\ncountry: NO\nflag: true\nother: False\n").data
    assert data == {"on": "yes", "country": "NO", "flag": True, "other": False}


def test_exponent_floats_without_a_dot_or_sign_are_numbers() -> None:
    data = parse("x.yaml", text="a: 1e9\nb: 1.5e9\nc: 12\nd: -.5\ne: 1_000\nf: 1e\n").data
    assert data == {"a": 1e9, "b": 1.5e9, "c": 12, "d": -0.5, "e": 1000, "f": "1e"}
