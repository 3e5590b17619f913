"""Catalog references: checked through a resolver, with did-you-mean suggestions."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from pydantic import BaseModel

from fabrictwin.errors import SpecError
from fabrictwin.spec.base import Spec
from fabrictwin.spec.load import load_text
from fabrictwin.spec.refs import FabricId, LinkId, catalog_ref, suggest


class FakeCatalog:
    """A two-fabric catalog to test resolution without the real data."""

    def ids(self, kind: str) -> Sequence[str]:
        return ["alpha-400g", "beta-100g"] if kind == "fabric" else []

    def get(self, kind: str, entry_id: str) -> BaseModel:
        raise KeyError(entry_id)


class Uses(Spec):
    """A spec with catalog references."""

    fabric: FabricId
    link: LinkId = "alpha-400g"


def test_suggest_names_only_the_best_match_and_its_near_ties() -> None:
    assert suggest("ib-ndrr", ["ib-ndr", "ib-hdr", "ib-xdr", "roce-400g"]) == "did you mean 'ib-ndr'?"
    assert suggest("ib-xndr", ["ib-ndr", "ib-xdr"]) == "did you mean 'ib-ndr' or 'ib-xdr'?"


def test_suggest_lists_the_choices_when_nothing_is_close() -> None:
    assert suggest("zzz", ["b", "a"]) == "known: a, b"
    many = [f"id{i:02d}" for i in range(20)]
    assert suggest("qqqqqq", many).endswith(", ...")


def test_an_id_the_context_catalog_knows_is_accepted() -> None:
    spec = load_text("fabric: beta-100g\n", Uses, context={"catalog": FakeCatalog()})
    assert spec.fabric == "beta-100g"


def test_an_unknown_id_is_named_with_its_noun_and_a_suggestion() -> None:
    with pytest.raises(SpecError) as info:
        load_text(
            "fabric: beta-100g\nlink: alpha-40g\n", Uses, name="c.yaml", context={"catalog": FakeCatalog()}
        )
    assert str(info.value) == "c.yaml:2 link: 'alpha-40g' is not a known link; did you mean 'alpha-400g'?"


def test_the_context_catalog_overrides_the_registered_one() -> None:
    # 'ib-ndr' is in the real (registered) catalog but not in the fake one
    with pytest.raises(SpecError, match="'ib-ndr' is not a known fabric"):
        load_text("fabric: ib-ndr\n", Uses, context={"catalog": FakeCatalog()})


def test_an_unknown_kind_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown catalog kind 'gpus'"):
        catalog_ref("gpus")
