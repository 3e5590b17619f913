"""Perfetto / Chrome trace-event export of a simulated step.

Format: the JSON object form of the Trace Event Format ("traceEvents" list; complete events
``ph: "X"`` with ``ts`` and ``dur`` in microseconds, metadata events ``ph: "M"`` naming processes
and threads), which the Perfetto UI and trace processor import
(https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU, "Trace Event
Format"; https://perfetto.dev/docs/getting-started/other-formats). One process per pipeline
stage, one thread per stream.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fabrictwin.timeline.events import Span


def _ids(spans: list[Span]) -> tuple[dict[str, int], dict[str, int]]:
    stages = sorted({s.stream.split("/")[0] for s in spans}, key=lambda x: (len(x), x))
    streams = sorted({s.stream for s in spans})
    return {name: i for i, name in enumerate(stages)}, {name: i + 1 for i, name in enumerate(streams)}


def trace_events(spans: list[Span], title: str = "fabrictwin step") -> dict[str, Any]:
    """The trace-event JSON object of ``spans``."""
    pids, tids = _ids(spans)
    events: list[dict[str, Any]] = []
    for stage, pid in pids.items():
        events.append({"name": "process_name", "ph": "M", "pid": pid, "tid": 0, "args": {"name": stage}})
    for stream, tid in tids.items():
        pid = pids[stream.split("/")[0]]
        label = stream.split("/", 1)[-1]
        events.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": label}})
    for span in spans:
        events.append(
            {
                "name": span.name,
                "cat": span.category,
                "ph": "X",
                "ts": span.start_s * 1e6,
                "dur": max(0.0, (span.end_s - span.start_s) * 1e6),
                "pid": pids[span.stream.split("/")[0]],
                "tid": tids[span.stream],
            }
        )
    return {"traceEvents": events, "displayTimeUnit": "ms", "otherData": {"title": title}}


def write_trace(spans: list[Span], path: Path, title: str = "fabrictwin step") -> Path:
    """Write the trace to ``path`` (``.json``); returns the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(trace_events(spans, title)), encoding="utf-8")
    return path
