"""Twin work behind the web app: scenario text -> result, comparisons, the report page.

The text goes through :func:`fabrictwin.spec.scenario.load_scenario`, the one YAML reader, so a
typo gets the same ``SpecError`` (naming the YAML path) the CLI prints. JSON is YAML 1.2 flow
syntax, so one reader takes both bodies.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fabrictwin.errors import SpecError
from fabrictwin.report.html import scenario_report
from fabrictwin.spec.scenario import ScenarioSpec, load_scenario
from fabrictwin.twin.compare import Variant, comparison_json, parse_vary
from fabrictwin.twin.compare import compare as run_compare
from fabrictwin.twin.simulate import SimulationResult
from fabrictwin.twin.simulate import simulate as run_simulate

BODY_NAME = "request"
"""The ``file`` a SpecError names for a scenario sent in a request body."""


def parse_scenario(text: str | dict[str, Any], name: str = BODY_NAME) -> ScenarioSpec:
    """A scenario from YAML/JSON text or an already-parsed JSON object.

    Raises:
        SpecError: empty text, bad YAML, unknown key, bad unit or value (with the YAML path).
    """
    if isinstance(text, dict):
        text = json.dumps(text)
    if not text.strip():
        raise SpecError("empty scenario: send the scenario YAML or JSON as the body", file=name)
    return load_scenario(name, text=text)


def simulate_text(text: str | dict[str, Any], name: str = BODY_NAME) -> SimulationResult:
    """Parse and simulate one scenario (raises SpecError or Infeasible like ``simulate``)."""
    return run_simulate(parse_scenario(text, name))


def compare_text(text: str | dict[str, Any], vary: Sequence[str]) -> list[Variant]:
    """Parse a scenario and simulate every combination of ``vary`` (``KEY=V1,V2`` items).

    Raises:
        SpecError: bad scenario or bad ``vary`` item.
        Infeasible: a variant that cannot run.
    """
    return run_compare(parse_scenario(text), parse_vary(vary))


def compare_json(text: str | dict[str, Any], vary: Sequence[str]) -> list[dict[str, Any]]:
    """The list ``compare --json`` prints, for a scenario text."""
    return comparison_json(compare_text(text, vary))


def report_html(result: SimulationResult) -> str:
    """The twin's own HTML report of ``result`` (rendered by ``report.html``, not re-drawn)."""
    with tempfile.TemporaryDirectory(prefix="fabrictwin-web-") as tmp:
        return scenario_report(result, Path(tmp) / "report.html").read_text(encoding="utf-8")
