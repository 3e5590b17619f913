"""Tenant isolation policy: compile to per-server match-action pipelines, trace, verify, deploy.

- :func:`load_policy` reads a policy YAML (errors located by file, line, YAML path);
- :func:`compile_policy` builds one pipeline per server (DPU mode: provider-controlled,
  offloaded to the eswitch; NIC mode: host-controlled);
- :func:`trace_packet` walks one packet hop by hop like ``ovs-appctl ofproto/trace``;
- :func:`check_policy` proves isolation over header-space atoms and reports rule anomalies and
  what zero-trust does and does not protect;
- :func:`deploy_policy` writes the artifacts only for a policy that passes the check.
"""

from fabrictwin.fleet.policy.compile import compile_policy
from fabrictwin.fleet.policy.deploy import Deployment, SnapDevice, deploy_policy, snap_plan
from fabrictwin.fleet.policy.findings import Finding
from fabrictwin.fleet.policy.load import load_policy
from fabrictwin.fleet.policy.trace import Hop, Trace, trace_packet
from fabrictwin.fleet.policy.verify import CheckReport, Reach, check_policy
from fabrictwin.fleet.policy.zerotrust import ServerTrust

__all__ = [
    "CheckReport",
    "Deployment",
    "Finding",
    "Hop",
    "Reach",
    "ServerTrust",
    "SnapDevice",
    "Trace",
    "check_policy",
    "compile_policy",
    "deploy_policy",
    "load_policy",
    "snap_plan",
    "trace_packet",
]
