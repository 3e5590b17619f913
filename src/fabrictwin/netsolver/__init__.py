"""Flow-level network model: max-min fair rates over a routing matrix, event-driven progression,
traffic patterns on built topologies, and transports as costs on links and hosts.

* :func:`solve` / :func:`solve_heap` / :func:`solve_progressive` - max-min fair rates;
* :func:`progress` - transfers that finish and re-share;
* :func:`shift_step` / :func:`ring_step` - synchronous steps on a :class:`fabrictwin.topology.Topology`;
* :func:`transport_model` - InfiniBand, RoCE v2, TCP and GPUDirect costs (host CPU included).
"""

from fabrictwin.netsolver.maxmin import solve, solve_heap, solve_progressive, solve_reference
from fabrictwin.netsolver.patterns import StepResult, ring_step, shift_step, step
from fabrictwin.netsolver.progression import Progress, progress
from fabrictwin.netsolver.transport import TransportModel, staged_Bps, transport_model

__all__ = [
    "Progress",
    "StepResult",
    "TransportModel",
    "progress",
    "ring_step",
    "shift_step",
    "solve",
    "solve_heap",
    "solve_progressive",
    "solve_reference",
    "staged_Bps",
    "step",
    "transport_model",
]
