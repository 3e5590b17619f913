"""HTML pages: ``/`` overview, ``/simulate`` form and result, ``/fleet`` inventory and rollouts.

Plots come from the twin's own report (``report.html``, plotly.js inlined from the installed
plotly package), shown in an iframe: no CDN, the page works offline.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from fabrictwin import __version__
from fabrictwin.errors import Infeasible, SpecError
from fabrictwin.fleet.store import Store
from fabrictwin.web import deps, fleetview, runs
from fabrictwin.web.settings import WebSettings

TEMPLATES = Path(__file__).parent / "templates"

router = APIRouter(include_in_schema=False)


def _render(request: Request, name: str, context: dict[str, Any], status: int = 200) -> HTMLResponse:
    templates: Jinja2Templates = request.app.state.templates
    return templates.TemplateResponse(request, name, {"version": __version__, **context}, status_code=status)


@router.get("/", response_class=HTMLResponse)
def index(request: Request, settings: Annotated[WebSettings, Depends(deps.settings)]) -> HTMLResponse:
    """Overview with links to the pages, the API and the examples."""
    return _render(request, "index.html", {"examples": [p.name for p in settings.examples()]})


def _form_context(settings: WebSettings, example: str = "", text: str = "") -> dict[str, Any]:
    return {"examples": [p.name for p in settings.examples()], "example": example, "text": text}


@router.get("/simulate", response_class=HTMLResponse)
def simulate_form(
    request: Request, settings: Annotated[WebSettings, Depends(deps.settings)], example: str = ""
) -> HTMLResponse:
    """The form: pick an example scenario or paste YAML."""
    return _render(request, "simulate.html", _form_context(settings, example))


def _example_text(settings: WebSettings, name: str) -> str:
    """The text of an example by file name (only files listed in ``examples_dir``).

    Raises:
        SpecError: no such example.
    """
    for path in settings.examples():
        if path.name == name:
            return path.read_text(encoding="utf-8")
    raise SpecError(f"{name!r} is not an example; pick one of the list or paste YAML")


@router.post("/simulate", response_class=HTMLResponse)
def simulate_page(
    request: Request,
    settings: Annotated[WebSettings, Depends(deps.settings)],
    example: Annotated[str, Form()] = "",
    yaml: Annotated[str, Form()] = "",
) -> HTMLResponse:
    """Simulate the pasted YAML (or the chosen example): breakdown table and the twin's report."""
    text = yaml.replace("\r\n", "\n")  # browsers send textarea lines with CRLF
    ctx = _form_context(settings, example, text)
    try:
        if text.strip():
            result = runs.simulate_text(text, "pasted")
        else:
            result = runs.simulate_text(_example_text(settings, example), example)
    except (SpecError, Infeasible) as exc:
        ctx["error"] = f"{type(exc).__name__}: {exc}"
        return _render(request, "simulate.html", ctx, status=422)
    data = result.to_json()
    step = result.step_time_s
    ctx["result"] = data
    ctx["rows"] = [(k, v * 1e3, v / step if step else 0.0) for k, v in data["breakdown_s"].items() if v > 0]
    ctx["report"] = runs.report_html(result)
    return _render(request, "simulate.html", ctx)


@router.get("/fleet", response_class=HTMLResponse)
def fleet_page(request: Request, store: Annotated[Store, Depends(deps.store)]) -> HTMLResponse:
    """Inventory table and each rollout's status with phase counts."""
    records = fleetview.inventory(store)
    rollouts = fleetview.rollout_summaries(store)
    phases = sorted({p for r in rollouts for p in r["phases"]})
    return _render(
        request,
        "fleet.html",
        {
            "records": records,
            "columns": fleetview.inventory_columns(records),
            "rollouts": rollouts,
            "phases": phases,
        },
    )
