"""``make demo``: check the seeds' claims with the twin and write the report under ./out/.

Runs the fabric comparison for ResNet-50 on 256 GPUs and BERT-Large on 1024 GPUs
(examples/seed-claims/), the DPU comparisons, prints the tables and writes
``out/seed-claims/claims.md`` plus HTML reports and a Perfetto trace.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.progress import Progress

from fabrictwin.report.claims import dpu_markdown, idle_markdown, speed_markdown, speed_table
from fabrictwin.report.html import comparison_report, scenario_report
from fabrictwin.report.trace import write_trace
from fabrictwin.spec.scenario import load_scenario
from fabrictwin.twin.claims import A100_DESIGNS, A100_REFERENCE, FABRIC_DESIGNS, dpu_check, speed_check


def _examples() -> Path:
    local = Path("examples/seed-claims")
    return local if local.is_dir() else Path(__file__).resolve().parents[2] / "examples" / "seed-claims"


def main(out: Path = Path("out/seed-claims")) -> Path:
    """Run the checks; return the path of the markdown report."""
    console = Console()
    src = _examples()
    speed_files = ("resnet50-256gpu.yaml", "bert-large-1024gpu.yaml")
    dpu_files = (
        "resnet50-256gpu.yaml",
        "resnet50-256gpu-cpu-decode.yaml",
        "bert-large-1024gpu-multitenant.yaml",
    )
    checks = []
    with Progress(console=console, transient=True) as bar:
        total = len(speed_files) * (len(FABRIC_DESIGNS) + len(A100_DESIGNS)) + 2 * len(dpu_files)
        task = bar.add_task("simulating designs", total=total)
        for name in speed_files:
            scenario = load_scenario(src / name)
            checks.append(speed_check(scenario, tick=lambda: bar.advance(task)))
            checks.append(speed_check(scenario, lambda: bar.advance(task), A100_DESIGNS, A100_REFERENCE))
        dpus = []
        for name in dpu_files:
            dpus.append(dpu_check(load_scenario(src / name)))
            bar.advance(task, 2)
    for check in checks:
        console.print(speed_table(check))
        comparison_report(check.designs, out / f"{check.model}-{check.system}-fabrics.html")
    ib = checks[0].result("ib-ndr x8")
    write_trace(ib.trace_spans(), out / "resnet50-ib-ndr.trace.json", ib.scenario.name)
    scenario_report(ib, out / "resnet50-ib-ndr.html", "resnet50-ib-ndr.trace.json")
    text = "\n\n".join(
        [
            "# Seed claims: what the twin predicts",
            *(speed_markdown(c) for c in checks),
            idle_markdown(checks),
            "## DPU offload",
            dpu_markdown(dpus),
        ]
    )
    out.mkdir(parents=True, exist_ok=True)
    report = out / "claims.md"
    report.write_text(text + "\n", encoding="utf-8")
    console.print(dpu_markdown(dpus))
    console.print(f"\nreport: {report} (HTML comparisons and a Perfetto trace beside it); see docs/claims.md")
    return report


if __name__ == "__main__":
    main()
