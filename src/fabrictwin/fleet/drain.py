"""Scheduler drain adapters behind one interface: Slurm (slurmrestd) and Kubernetes.

Before a DPU is touched its host must stop taking work: in DPU mode the host loses its network
while the Arm reboots (reference 6, "Drain before touching a DPU").
"""

from __future__ import annotations

from typing import Protocol

from fabrictwin.fleet.redfish import Facade

SLURM = "/slurm/v0.0.40"
# Slurm states in which a node runs no job: scontrol(1) (reference 6 [S96]).
SLURM_IDLE_DRAINED = {"DRAIN", "DRAINED", "DOWN"}


class DrainAdapter(Protocol):
    """Drain, check, and return a node to service; every call is idempotent."""

    async def drain(self, node: str, reason: str) -> None:
        """Stop new work on the node."""
        ...

    async def drained(self, node: str) -> bool:
        """True once no work runs on the node."""
        ...

    async def undrain(self, node: str) -> None:
        """Return the node to service."""
        ...


class NoDrain:
    """No scheduler (lab fleets): drain is a no-op."""

    async def drain(self, node: str, reason: str) -> None:
        return None

    async def drained(self, node: str) -> bool:
        return True

    async def undrain(self, node: str) -> None:
        return None


class SlurmDrain:
    """slurmrestd v0.0.40: ``POST /node/{name}`` with ``state`` DRAIN / RESUME."""

    def __init__(self, api: Facade) -> None:
        self.api = api

    async def drain(self, node: str, reason: str) -> None:
        await self.api.post(f"{SLURM}/node/{node}", {"state": ["DRAIN"], "reason": reason})

    async def drained(self, node: str) -> bool:
        body = await self.api.get(f"{SLURM}/node/{node}")
        nodes = body.get("nodes", [body]) if isinstance(body, dict) else []
        states = {str(s).upper() for n in nodes for s in n.get("state", [])}
        # DRAINING = still running jobs; DRAIN without ALLOC/MIXED = drained.
        return bool(states & SLURM_IDLE_DRAINED) and not states & {"DRAINING", "ALLOC", "ALLOCATED", "MIXED"}

    async def undrain(self, node: str) -> None:
        await self.api.post(f"{SLURM}/node/{node}", {"state": ["RESUME"]})


class KubernetesDrain:
    """Kubernetes: cordon (``spec.unschedulable``), evict the node's pods, uncordon."""

    def __init__(self, api: Facade) -> None:
        self.api = api

    async def _pods(self, node: str) -> list[dict[str, str]]:
        body = await self.api.get(f"/api/v1/pods?fieldSelector=spec.nodeName={node}")
        items = body.get("items", []) if isinstance(body, dict) else []
        return [
            {"name": p["metadata"]["name"], "namespace": p["metadata"].get("namespace", "default")}
            for p in items
            if p.get("spec", {}).get("nodeName", node) == node
        ]

    async def drain(self, node: str, reason: str) -> None:
        await self.api.patch(f"/api/v1/nodes/{node}", {"spec": {"unschedulable": True}})
        for pod in await self._pods(node):
            body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": pod}
            await self.api.post(f"/api/v1/namespaces/{pod['namespace']}/pods/{pod['name']}/eviction", body)

    async def drained(self, node: str) -> bool:
        node_body = await self.api.get(f"/api/v1/nodes/{node}")
        cordoned = bool(node_body.get("spec", {}).get("unschedulable"))
        return cordoned and not await self._pods(node)

    async def undrain(self, node: str) -> None:
        await self.api.patch(f"/api/v1/nodes/{node}", {"spec": {"unschedulable": False}})
