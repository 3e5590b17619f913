"""The JSON API gives what the library and the CLI's --json give, and says what is wrong with bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient

from fabrictwin import catalog
from fabrictwin.fleet import service
from fabrictwin.fleet.store import Store
from fabrictwin.spec.scenario import load_scenario
from fabrictwin.twin.compare import compare, comparison_json, parse_vary
from fabrictwin.twin.simulate import simulate

from .conftest import EXAMPLES, FilledStore


def _same(obj: object) -> object:
    """``obj`` as it comes out of a JSON response (floats round-trip exactly through repr)."""
    return json.loads(json.dumps(obj))


@pytest.mark.parametrize("example", ["resnet50-h100-64.yaml", "mixtral-8x7b-roce.yaml"])
def test_simulating_a_shipped_example_through_the_api_equals_the_library(
    client: TestClient, example: str
) -> None:
    path = EXAMPLES / example
    expected = _same(simulate(load_scenario(path)).to_json())
    yaml_reply = client.post(
        "/api/simulate", content=path.read_bytes(), headers={"content-type": "application/yaml"}
    )
    assert yaml_reply.status_code == 200
    assert yaml_reply.json() == expected
    as_json = client.post("/api/simulate", json=yaml.safe_load(path.read_text()))
    assert as_json.json() == expected


def test_a_typo_key_is_a_422_naming_the_yaml_path_and_line(client: TestClient) -> None:
    text = (EXAMPLES / "resnet50-h100-64.yaml").read_text().replace("  nodes: 8", "  ndoes: 8")
    reply = client.post("/api/simulate", content=text)
    assert reply.status_code == 422
    body = reply.json()
    assert body["error"] == "SpecError"
    assert "request:5 cluster.ndoes" in body["detail"]
    assert "did you mean 'nodes'" in body["detail"]


def test_an_empty_or_oversized_body_is_refused_with_a_reason(client: TestClient) -> None:
    assert "empty scenario" in client.post("/api/simulate", content=b" ").json()["detail"]
    reply = client.post("/api/simulate", content=b"#" * 1_000_001)
    assert reply.status_code == 422 and "over the limit" in reply.json()["detail"]


def test_compare_through_the_api_equals_the_library_comparison(client: TestClient) -> None:
    path = EXAMPLES / "resnet50-h100-64.yaml"
    vary = ["fabric=ib-ndr,roce-400g"]
    expected = _same(comparison_json(compare(load_scenario(path), parse_vary(vary))))
    reply = client.post("/api/compare", json={"scenario": path.read_text(), "vary": vary})
    assert reply.status_code == 200
    assert reply.json() == expected
    assert [r["varied"] for r in reply.json()] == [{"fabric": "ib-ndr"}, {"fabric": "roce-400g"}]


def test_a_bad_vary_item_is_a_422(client: TestClient) -> None:
    reply = client.post(
        "/api/compare",
        json={"scenario": (EXAMPLES / "resnet50-h100-64.yaml").read_text(), "vary": ["fabric"]},
    )
    assert reply.status_code == 422
    assert "expected KEY=VALUE" in reply.json()["detail"]


def test_the_catalog_endpoint_lists_every_entry_of_a_kind_and_404s_an_unknown_kind(
    client: TestClient,
) -> None:
    reply = client.get("/api/catalog/gpu").json()
    assert sorted(reply) == catalog.ids("gpu")
    first = catalog.ids("gpu")[0]
    assert reply[first] == catalog.get("gpu", first).model_dump(mode="json")
    missing = client.get("/api/catalog/gpus")
    assert missing.status_code == 404
    assert "did you mean 'gpu'" in missing.json()["detail"]


def test_the_inventory_endpoint_shows_what_the_fleet_inventory_read_stored(
    client: TestClient, filled: FilledStore
) -> None:
    rows = client.get("/api/fleet/inventory").json()
    assert [r["name"] for r in rows] == filled.names
    assert all(r["inventory"]["generation"] == "BF3" for r in rows)


def test_the_rollout_endpoints_show_the_executor_phase_counts_and_reasons(
    client: TestClient, filled: FilledStore
) -> None:
    listed = client.get("/api/fleet/rollouts").json()
    assert [(r["name"], r["status"], r["phases"], r["devices"]) for r in listed] == [
        ("bfb-2.9.2", filled.result.status, {"done": 5, "rolled_back": 1}, 6)
    ]
    detail = client.get("/api/fleet/rollouts/bfb-2.9.2").json()
    assert detail["phases"] == filled.result.phases
    assert "install did not finish" in detail["reasons"]["dpu0003"]
    store = Store(filled.url)
    try:
        assert detail["pushes"] == service.rollout_status(store, "bfb-2.9.2").pushes
    finally:
        store.close()
    assert client.get("/api/fleet/rollouts/nope").status_code == 404


def test_openapi_documents_every_api_route(client: TestClient) -> None:
    paths = set(client.get("/openapi.json").json()["paths"])
    assert {
        "/api/simulate",
        "/api/compare",
        "/api/catalog/{kind}",
        "/api/fleet/inventory",
        "/api/fleet/rollouts",
        "/api/fleet/rollouts/{name}",
    } <= paths
    assert client.get("/docs").status_code == 200


def test_an_example_dir_is_read_from_settings(tmp_path: Path) -> None:
    from fabrictwin.web import WebSettings

    (tmp_path / "a.yaml").write_text("name: a\n")
    (tmp_path / "notes.txt").write_text("")
    assert [p.name for p in WebSettings(examples_dir=tmp_path).examples()] == ["a.yaml"]


def test_a_valid_scenario_that_cannot_run_is_a_422_with_the_infeasible_reason(client: TestClient) -> None:
    text = (
        (EXAMPLES / "resnet50-h100-64.yaml").read_text().replace("global_batch: 3200", "global_batch: 3201")
    )
    reply = client.post("/api/simulate", content=text)
    assert reply.status_code == 422
    assert reply.json()["error"] == "Infeasible"
    assert "not divisible by data-parallel degree 64" in reply.json()["detail"]
