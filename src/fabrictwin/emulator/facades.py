"""Facades around the DPUs: a platform BMC per server, Slurm ``slurmrestd`` and Kubernetes nodes.

Minimal faithful subsets (7.7) [S39][S40][S96]:
- platform BMC: ``Systems/System_0`` with ``ComputerSystem.Reset``; ``PowerCycle`` is cold
  unless the server has the ``powercycle_is_warm`` quirk (answers 200, warm-resets only);
  ``ACPowercycle`` is always cold.
- Slurm v0.0.40: node ``state`` is a list of flags (``["IDLE", "DRAIN"]``); DRAIN on a node with
  jobs makes it DRAINING until its jobs end (``JOB_DRAIN_S`` later), RESUME clears DRAIN/DOWN.
- Kubernetes v1: ``spec.unschedulable`` (cordon), pod eviction, and a ``Ready`` condition that
  is False while a DPU-mode card has no running Arm (the host has no network then, 2.1) [S55].
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from fabrictwin.emulator.device import Device
from fabrictwin.emulator.fleet import Fleet, SchedulerNode
from fabrictwin.emulator.redfish.auth import authenticate
from fabrictwin.emulator.redfish.odata import V1, collection, link, resource, status, success
from fabrictwin.emulator.rferror import bad_value, not_found

JOB_DRAIN_S = 600.0
"""Virtual seconds until running jobs leave a draining node (inference: a typical job tail)."""
UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
"""Taint Kubernetes puts on a cordoned node (well-known taint, kubernetes.io docs)."""
PLATFORM_SYS = f"{V1}/Systems/System_0"
PLATFORM_RESETS = [
    "On",
    "ForceOff",
    "GracefulShutdown",
    "ForceRestart",
    "GracefulRestart",
    "PowerCycle",
    "ACPowercycle",
]


def _json(body: Any, status_code: int = 200) -> Response:
    return Response(json.dumps(body), status_code, media_type="application/json")


async def platform_bmc(fleet: Fleet, index: int, request: Request) -> Response:
    """The server's own BMC (host power).

    Raises:
        RedfishError: 401 without valid credentials, 404/400 for unknown paths or reset types.
    """
    dev = fleet.devices[index]
    path = request.scope["path"].rstrip("/")
    if path != V1:
        authenticate(dev, fleet.accounts[index], request)
    if request.method == "GET":
        if path == V1:
            return _json(
                resource(
                    V1,
                    "#ServiceRoot.v1_15_0.ServiceRoot",
                    Id="RootService",
                    Name="Root Service",
                    RedfishVersion="1.17.0",
                    UUID=dev.ident.uuid,
                    Systems=link(f"{V1}/Systems"),
                )
            )
        if path == f"{V1}/Systems":
            return _json(collection(f"{V1}/Systems", "ComputerSystemCollection", "Systems", [PLATFORM_SYS]))
        if path == PLATFORM_SYS:
            return _json(
                resource(
                    PLATFORM_SYS,
                    "#ComputerSystem.v1_17_0.ComputerSystem",
                    Id="System_0",
                    Name=dev.ident.server,
                    HostName=dev.ident.server,
                    PowerState=dev.host_power,
                    Status=status(),
                    Actions={
                        "#ComputerSystem.Reset": {
                            "target": f"{PLATFORM_SYS}/Actions/ComputerSystem.Reset",
                            "ResetType@Redfish.AllowableValues": PLATFORM_RESETS,
                        }
                    },
                )
            )
        raise not_found(path)
    if request.method == "POST" and path == f"{PLATFORM_SYS}/Actions/ComputerSystem.Reset":
        body = json.loads(await request.body() or b"{}")
        platform_reset(dev, str(body.get("ResetType", "")))
        return _json(success())
    raise not_found(path)


def platform_reset(dev: Device, kind: str) -> None:
    """Apply a platform-BMC reset to the server hosting ``dev``.

    Raises:
        RedfishError: 400 for an unknown ResetType.
    """
    if kind == "PowerCycle":
        dev.host_power_cycle(cold=not dev.has("powercycle_is_warm"))
    elif kind == "ACPowercycle":
        dev.host_power_cycle(cold=True)
    elif kind in ("ForceRestart", "GracefulRestart"):
        dev.host_power_cycle(cold=False)
    elif kind in ("ForceOff", "GracefulShutdown"):
        dev.host_off()
    elif kind in ("On", "ForceOn"):
        dev.host_on()
    else:
        raise bad_value(kind, "ResetType")


def _slurm_state(node: SchedulerNode) -> list[str]:
    base = ["ALLOCATED"] if node.pods else ["IDLE"]
    if node.slurm_state == "DOWN":
        base = ["DOWN"]
    if node.slurm_state == "DRAIN":
        base.append("DRAIN")
    return base


def _slurm_node(fleet: Fleet, node: SchedulerNode) -> dict[str, Any]:
    return {
        "name": node.name,
        "hostname": node.name,
        "state": _slurm_state(node),
        "reason": node.reason,
        "partitions": ["gpu"],
        "cpus": 224,  # DGX H100: 2 x 56-core Xeon 8480C with SMT (catalog cpus.yaml xeon-8480c)
        "gres": "gpu:h100:8",
    }


def _slurm_envelope(**fields: Any) -> dict[str, Any]:
    return {
        "meta": {
            "plugin": {"type": "openapi/slurmctld", "name": "Slurm OpenAPI slurmctld"},
            "slurm": {"version": {"major": "23", "minor": "11", "micro": "4"}},
        },
        "errors": [],
        "warnings": [],
        **fields,
    }


async def slurm(fleet: Fleet, path: str, request: Request) -> Response | None:
    """``/slurm/v0.0.40/nodes`` and ``/slurm/v0.0.40/node/{name}``; None for other paths."""
    base = "/slurm/v0.0.40"
    if path == f"{base}/nodes":
        return _json(_slurm_envelope(nodes=[_slurm_node(fleet, n) for n in fleet.nodes]))
    if not path.startswith(f"{base}/node/"):
        return None
    name = path.rsplit("/", 1)[-1]
    if name not in fleet.by_node:
        return _json(
            _slurm_envelope(errors=[{"error": f"Unable to query node {name}", "error_number": 2017}]), 404
        )
    node = fleet.nodes[fleet.by_node[name]]
    if request.method == "POST":
        body = json.loads(await request.body() or b"{}")
        states = [s.upper() for s in body.get("state", [])]
        if "DRAIN" in states:
            node.slurm_state, node.reason = "DRAIN", str(body.get("reason", "drained"))
            if node.pods:
                fleet.clock.schedule(JOB_DRAIN_S, node.pods.clear)
        elif "RESUME" in states:
            node.slurm_state, node.reason = "IDLE", ""
        elif "DOWN" in states:
            node.slurm_state, node.reason = "DOWN", str(body.get("reason", "down"))
        else:
            return _json(_slurm_envelope(errors=[{"error": f"Invalid node state {states}"}]), 400)
    return _json(_slurm_envelope(nodes=[_slurm_node(fleet, node)]))


def _k8s_node(fleet: Fleet, i: int) -> dict[str, Any]:
    node, dev = fleet.nodes[i], fleet.devices[i]
    network_ok = dev.mode == "NicMode" or dev.dpu_ready  # DPU mode: no host network without the Arm
    return {
        "kind": "Node",
        "apiVersion": "v1",
        "metadata": {
            "name": node.name,
            "labels": {"kubernetes.io/hostname": node.name, "fabrictwin/dpu-serial": dev.ident.serial},
        },
        # A cordoned node also carries the taint the node controller adds for it.
        "spec": {"unschedulable": True, "taints": [UNSCHEDULABLE_TAINT]} if node.unschedulable else {},
        "status": {
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True" if network_ok else "False",
                    "reason": "KubeletReady" if network_ok else "NetworkUnavailable",
                }
            ]
        },
    }


async def kubernetes(fleet: Fleet, path: str, request: Request) -> Response | None:
    """Nodes (get, cordon via PATCH), pods and evictions; None for other paths."""
    if path == "/api/v1/nodes":
        return _json(
            {
                "kind": "NodeList",
                "apiVersion": "v1",
                "items": [_k8s_node(fleet, i) for i in range(len(fleet.nodes))],
            }
        )
    if path.startswith("/api/v1/nodes/"):
        name = path.rsplit("/", 1)[-1]
        if name not in fleet.by_node:
            return _json({"kind": "Status", "status": "Failure", "reason": "NotFound", "code": 404}, 404)
        i = fleet.by_node[name]
        if request.method == "PATCH":
            body = json.loads(await request.body() or b"{}")
            fleet.nodes[i].unschedulable = bool(body.get("spec", {}).get("unschedulable", False))
        return _json(_k8s_node(fleet, i))
    if path == "/api/v1/pods":
        items = [
            {"kind": "Pod", "metadata": {"name": p, "namespace": "default"}, "spec": {"nodeName": n.name}}
            for n in fleet.nodes
            for p in n.pods
        ]
        return _json({"kind": "PodList", "apiVersion": "v1", "items": items})
    if path.startswith("/api/v1/namespaces/") and path.endswith("/eviction") and request.method == "POST":
        pod = path.split("/")[-2]
        for node in fleet.nodes:
            if pod in node.pods:
                node.pods.remove(pod)
                return _json({"kind": "Status", "apiVersion": "v1", "status": "Success", "code": 201}, 201)
        return _json({"kind": "Status", "status": "Failure", "reason": "NotFound", "code": 404}, 404)
    return None
