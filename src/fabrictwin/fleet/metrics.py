"""Prometheus metrics of a running rollout (one registry per rollout, served on loopback)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from prometheus_client import CollectorRegistry, Gauge, start_http_server

from fabrictwin.fleet.state import PHASES, DeviceState


class RolloutMetrics:
    """Gauges of devices per phase and of progress; ``serve`` exposes them at ``/metrics``."""

    def __init__(self, rollout: str) -> None:
        self.rollout = rollout
        self.registry = CollectorRegistry()
        self.devices = Gauge(
            "fabrictwin_rollout_devices",
            "DPUs per rollout phase",
            ["rollout", "phase"],
            registry=self.registry,
        )
        self.unavailable = Gauge(
            "fabrictwin_rollout_unavailable", "DPUs drained right now", ["rollout"], registry=self.registry
        )
        self.finished = Gauge(
            "fabrictwin_rollout_finished_ratio",
            "Share of DPUs in a final phase",
            ["rollout"],
            registry=self.registry,
        )
        self.pushes = Gauge(
            "fabrictwin_rollout_pushes", "SimpleUpdate pushes issued", ["rollout"], registry=self.registry
        )

    def update(self, states: Mapping[str, DeviceState]) -> None:
        """Refresh every gauge from the executor's states."""
        counts = Counter(s.phase for s in states.values())
        for phase in PHASES:
            self.devices.labels(self.rollout, phase).set(counts.get(phase, 0))  # type: ignore[call-overload]
        final = sum(1 for s in states.values() if s.terminal)
        busy = sum(1 for s in states.values() if not s.terminal and s.phase != "pending")
        self.unavailable.labels(self.rollout).set(busy + counts.get("quarantined", 0))
        self.finished.labels(self.rollout).set(final / max(1, len(states)))
        self.pushes.labels(self.rollout).set(sum(s.pushes for s in states.values()))

    def serve(self, port: int) -> None:
        """Serve ``/metrics`` on ``127.0.0.1:port`` (a daemon thread)."""
        start_http_server(port, addr="127.0.0.1", registry=self.registry)
