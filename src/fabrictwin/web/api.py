"""The JSON API: ``/api/simulate``, ``/api/compare``, ``/api/catalog/{kind}``, ``/api/fleet/...``.

Responses are the objects the CLI's ``--json`` prints, so a script can move between the two.
Errors: ``SpecError``/``Infeasible`` -> 422, ``NotFound`` -> 404 (handlers in :mod:`.app`).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends
from pydantic import BaseModel, Field

from fabrictwin import catalog
from fabrictwin.fleet.store import Store
from fabrictwin.web import deps, fleetview, runs

router = APIRouter(prefix="/api")

_SCENARIO_BODY = {
    "content": {
        "application/yaml": {"schema": {"type": "string"}},
        "application/json": {"schema": {"type": "object"}},
    },
    "required": True,
}


class CompareRequest(BaseModel):
    """Body of ``POST /api/compare``."""

    model_config = {"extra": "forbid"}
    scenario: str | dict[str, Any]
    """The scenario: YAML text, or the same as a JSON object."""
    vary: list[str] = Field(min_length=1)
    """``KEY=V1,V2`` items as for ``compare --vary`` (fabric, dpu, sharp, nodes, or a dotted path)."""


@router.post("/simulate", openapi_extra={"requestBody": _SCENARIO_BODY})
def simulate(text: Annotated[str, Depends(deps.body_text)]) -> dict[str, Any]:
    """Simulate the scenario in the body (YAML or JSON); returns what ``simulate --json`` prints."""
    return runs.simulate_text(text).to_json()


@router.post("/compare")
def compare(req: Annotated[CompareRequest, Body()]) -> list[dict[str, Any]]:
    """Simulate every combination of the varied values; returns what ``compare --json`` prints."""
    return runs.compare_json(req.scenario, req.vary)


@router.get("/catalog/{kind}")
def catalog_kind(kind: str) -> dict[str, Any]:
    """Every catalog entry of ``kind`` (gpu, cpu, nic, dpu, switch, fabric, system, model), by id.

    Values are SI, as stored in the specs.
    """
    return {i: catalog.get(kind, i).model_dump(mode="json") for i in catalog.ids(kind)}


@router.get("/fleet/inventory")
def fleet_inventory(store: Annotated[Store, Depends(deps.store)]) -> list[dict[str, Any]]:
    """Every stored inventory record (as ``fleet discover`` / ``fleet inventory`` wrote them)."""
    return fleetview.inventory(store)


@router.get("/fleet/rollouts")
def fleet_rollouts(store: Annotated[Store, Depends(deps.store)]) -> list[dict[str, Any]]:
    """Every stored rollout with status and phase counts."""
    return fleetview.rollout_summaries(store)


@router.get("/fleet/rollouts/{name}")
def fleet_rollout(name: str, store: Annotated[Store, Depends(deps.store)]) -> dict[str, Any]:
    """One rollout as ``fleet rollout status`` shows it: phases, reasons, pushes, plan, last actions."""
    return fleetview.rollout_detail(store, name)
