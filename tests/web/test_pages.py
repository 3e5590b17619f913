"""Pages render the numbers the twin computes and the fleet state the control plane stored, offline."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from fabrictwin.errors import SpecError
from fabrictwin.spec.scenario import load_scenario
from fabrictwin.twin.simulate import simulate
from fabrictwin.web.settings import check_host

from .conftest import EXAMPLES, FilledStore


def test_the_overview_links_the_pages_and_lists_the_examples(client: TestClient) -> None:
    page = client.get("/").text
    for link in ('href="/simulate"', 'href="/fleet"', 'href="/docs"'):
        assert link in page
    assert "/simulate?example=resnet50-h100-64.yaml" in page


def test_the_simulate_form_preselects_the_example_asked_for(client: TestClient) -> None:
    page = client.get("/simulate", params={"example": "mixtral-8x7b-roce.yaml"}).text
    assert '<option value="mixtral-8x7b-roce.yaml" selected>' in page


def test_simulating_an_example_shows_its_step_time_breakdown_and_the_twin_report(client: TestClient) -> None:
    result = simulate(load_scenario(EXAMPLES / "gpt3-175b-16k-h100.yaml"))
    page = client.post("/simulate", data={"example": "gpt3-175b-16k-h100.yaml", "yaml": ""})
    assert page.status_code == 200
    text = page.text
    assert f"{result.step_time_s * 1e3:.2f} ms" in text
    assert f"{result.time_to_train_s / 3600:.2f} h" in text
    for key, sec in result.breakdown_s.items():
        if sec > 0:
            assert f'<td>{key}</td><td class="num">{sec * 1e3:.2f}</td>' in text
    assert '<iframe title="report" srcdoc="' in text
    assert "Where the step goes" in text  # the report's own plotly figure, not a re-draw


def test_no_page_loads_anything_from_the_network(client: TestClient) -> None:
    page = client.post("/simulate", data={"example": "resnet50-h100-64.yaml", "yaml": ""}).text
    assert not re.search(r"<script[^>]+src=\S*https?:", page)
    assert not re.search(r"&lt;script[^&]+src=\S*https?:", page)  # inside the report iframe


def test_pasted_yaml_with_a_typo_shows_the_spec_error_and_keeps_the_text(client: TestClient) -> None:
    text = (EXAMPLES / "resnet50-h100-64.yaml").read_text().replace("global_batch", "global_bacth")
    page = client.post("/simulate", data={"example": "", "yaml": text})
    assert page.status_code == 422
    assert "pasted:9 job.global_bacth" in page.text
    assert "global_bacth: 3200" in page.text


def test_an_example_not_in_the_list_is_refused(client: TestClient) -> None:
    page = client.post("/simulate", data={"example": "../pyproject.toml", "yaml": ""})
    assert page.status_code == 422
    assert "is not an example" in page.text


def test_the_fleet_page_shows_phase_counts_and_every_device(client: TestClient, filled: FilledStore) -> None:
    text = client.get("/fleet").text
    assert "<th>done</th><th>rolled_back</th>" in text
    row = re.search(
        r"bfb-2\.9\.2</a></td><td>(\w+)</td><td class=\"num\">6</td>\s*"
        r"<td class=\"num\">5</td><td class=\"num\">1</td>",
        text,
    )
    assert row and row.group(1) == filled.result.status
    assert "Inventory (6 devices)" in text
    for name in filled.names:
        assert f"<td>{name}</td>" in text


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.53", "::1", "localhost"])
def test_loopback_hosts_are_accepted(host: str) -> None:
    assert check_host(host) == host


@pytest.mark.parametrize("host", ["0.0.0.0", "10.1.2.3", "::", "example.org"])
def test_other_hosts_are_refused_unless_remote_is_allowed_and_the_reason_is_given(host: str) -> None:
    with pytest.raises(SpecError, match="no authentication"):
        check_host(host)
    assert check_host(host, allow_remote=True) == host


def test_the_api_docs_page_loads_swagger_ui_from_this_server_not_a_cdn(client: TestClient) -> None:
    page = client.get("/docs").text
    scripts = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert scripts and all(s.startswith("/static/swagger/") for s in scripts), scripts
    assert client.get("/static/swagger/swagger-ui-bundle.js").status_code == 200
