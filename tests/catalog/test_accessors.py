"""Catalog accessors: every entry loads, carries sources, and bad ids get suggestions."""

from __future__ import annotations

import pytest

from fabrictwin import catalog
from fabrictwin.errors import NotFound, SpecError
from fabrictwin.spec.hardware import CpuSpec, FabricSpec, GpuSpec, NicSpec, SwitchSpec, SystemSpec
from fabrictwin.spec.workload import ModelSpec

KINDS = {
    "gpu": GpuSpec,
    "cpu": CpuSpec,
    "nic": NicSpec,
    "switch": SwitchSpec,
    "fabric": FabricSpec,
    "system": SystemSpec,
    "model": ModelSpec,
}
REQUIRED = {
    "gpu": {"v100-sxm2", "a100-40gb", "a100-80gb", "h100-sxm", "h200-sxm", "b200", "gb200"},
    "system": {"dgx-1-v100", "dgx-a100", "dgx-h100", "dgx-h200", "dgx-b200", "pcie-8gpu", "gb200-nvl72"},
    "nic": {"cx6-hdr", "cx7-ndr", "cx8", "bf2-2p-100g", "bf3-b3220", "bf3-b3240", "bf3-b3140h"},
    "switch": {"qm8700", "qm9700", "q3400", "sn5600", "eth-400g-ecmp", "eth-100g-ecmp"},
    "fabric": {
        "ib-hdr",
        "ib-ndr",
        "ib-xdr",
        "roce-400g",
        "roce-200g",
        "spectrum-x-400g",
        "tcp-100g",
        "tcp-25g",
    },
    "model": {
        "resnet50",
        "bert-large",
        "gpt3-175b",
        "llama3-8b",
        "llama3-70b",
        "llama3-405b",
        "mixtral-8x7b",
    },
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_entry_of_every_kind_loads_as_its_spec_with_sources(kind: str) -> None:
    entries = catalog.entries(kind)
    assert entries, f"no {kind} entries"
    for entry in entries:
        assert isinstance(entry, KINDS[kind])
        sources = getattr(entry, "sources")  # noqa: B009
        assert sources, f"{kind} {getattr(entry, 'id')} has no source"  # noqa: B009
        assert all(s.ref and s.note for s in sources), f"{entry.id}: every source needs ref and note"


@pytest.mark.parametrize(("kind", "wanted"), sorted(REQUIRED.items()))
def test_the_catalog_has_every_product_the_issue_names(kind: str, wanted: set[str]) -> None:
    assert wanted <= set(catalog.ids(kind))


def test_ids_are_sorted_and_match_the_entries() -> None:
    ids = catalog.ids("gpu")
    assert ids == sorted(ids)
    assert [g.id for g in catalog.entries("gpu")] == ids  # type: ignore[attr-defined]


def test_typed_accessors_return_the_entry_with_that_id() -> None:
    assert catalog.gpu("h100-sxm").id == "h100-sxm"
    assert catalog.cpu("epyc-7742").cores == 64
    assert catalog.nic("bf3-b3220").kind == "dpu"
    assert catalog.switch("qm9700").protocol == "infiniband"
    assert catalog.fabric("ib-ndr").transport == "infiniband"
    assert catalog.system("dgx-h100").gpu == "h100-sxm"
    assert catalog.model("llama3-70b").layers == 80


def test_the_dpu_kind_lists_only_dpus() -> None:
    assert catalog.ids("dpu") == ["bf2-2p-100g", "bf3-b3220", "bf3-b3240"]


def test_an_unknown_id_is_both_not_found_and_a_spec_error_with_a_suggestion() -> None:
    with pytest.raises(catalog.UnknownId) as info:
        catalog.gpu("h100-sxn")
    assert str(info.value) == "'h100-sxn' is not a known gpu; did you mean 'h100-sxm'?"
    assert isinstance(info.value, NotFound) and isinstance(info.value, SpecError)


def test_an_unknown_kind_is_reported_with_the_known_kinds() -> None:
    with pytest.raises(catalog.UnknownId, match="'gpus' is not a catalog kind; did you mean 'gpu'"):
        catalog.ids("gpus")


def test_loads_are_cached() -> None:
    assert catalog.gpu("b200") is catalog.gpu("b200")


def test_a_catalog_file_with_a_repeated_id_is_rejected_at_its_line() -> None:
    text = (
        "entries:\n"
        "  - {id: c, name: C, cores: 2, base_hz: 2GHz, tdp_w: 100W}\n"
        "  - {id: c, name: C, cores: 4, base_hz: 2GHz, tdp_w: 100W}\n"
    )
    with pytest.raises(SpecError) as info:
        catalog.parse_entries("cpu", text, "cpus.yaml")
    assert str(info.value) == "cpus.yaml:3 entries[1].id: id 'c' appears twice"


def test_a_catalog_entry_with_a_bad_cross_reference_is_rejected() -> None:
    text = (
        "entries:\n  - id: s\n    name: S\n    gpu: h100\n    gpus: 8\n"
        "    cpu: epyc-7742\n    cpu_sockets: 2\n"
        "    nvswitch: true\n    intra_node_Bps: 450GB/s\n    compute_nics: 8\n    compute_nic: cx7-ndr\n"
        "    storage_nics: 0\n    storage_nic: cx7-ndr\n    host_memory_bytes: 2TiB\n    power_w: 10kW\n"
        "    rack_units: 8\n"
    )
    with pytest.raises(SpecError) as info:
        catalog.parse_entries("system", text, "systems.yaml")
    assert str(info.value).startswith(
        "systems.yaml:4 entries[0].gpu: 'h100' is not a known gpu; did you mean"
    )


def test_get_by_the_dpu_kind_returns_only_dpus() -> None:
    assert catalog.get("dpu", "bf3-b3220") is catalog.nic("bf3-b3220")
    with pytest.raises(catalog.UnknownId, match="'cx7-ndr' is not a known dpu"):
        catalog.get("dpu", "cx7-ndr")


def test_the_catalog_page_lists_every_id() -> None:
    from pathlib import Path

    page = (Path(__file__).parents[2] / "docs" / "models" / "catalog.md").read_text(encoding="utf-8")
    for kind in ("gpu", "cpu", "nic", "switch", "fabric", "system", "model"):
        missing = [i for i in catalog.ids(kind) if f"`{i}`" not in page]
        assert not missing, f"docs/models/catalog.md does not list {kind} {missing}"


def test_the_package_root_loads_the_catalog_only_on_first_use() -> None:
    # the control plane imports the package root and must not load the model core
    import subprocess
    import sys

    code = (
        "import sys, fabrictwin\n"
        "assert 'fabrictwin.catalog' not in sys.modules\n"
        "fabrictwin.load_cluster\n"
        "assert 'fabrictwin.catalog' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_package_root_rejects_unknown_names() -> None:
    import fabrictwin

    with pytest.raises(AttributeError, match="has no attribute 'catalgo'"):
        fabrictwin.catalgo  # noqa: B018
