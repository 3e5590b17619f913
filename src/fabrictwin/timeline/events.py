"""A deterministic discrete-event core and a stream scheduler built on it.

The core is a heap of ``(time, priority, sequence, callback)`` as in SimPy: ties on time break on
priority, then on insertion order, so the same inputs always give the same trace.

On top sits :func:`run_ops`: operations are issued, in order, onto named streams (like CUDA
streams: one stream runs one operation at a time, in issue order). An operation starts when it is
at the head of its stream, the stream is idle, and every operation it depends on has finished.
The result is the list of :class:`Span` (what ran where, when) from which exposed communication,
bubbles and the step time are read.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from fabrictwin.errors import Infeasible


class EventLoop:
    """Virtual time and a heap of pending callbacks."""

    def __init__(self) -> None:
        self.now = 0.0
        self._heap: list[tuple[float, int, int, Callable[[], None]]] = []
        self._seq = 0

    def schedule(self, delay_s: float, callback: Callable[[], None], priority: int = 1) -> None:
        """Run ``callback`` at ``now + delay_s``.

        Raises:
            ValueError: ``delay_s`` is negative.
        """
        if delay_s < 0:
            raise ValueError(f"negative delay {delay_s}")
        heapq.heappush(self._heap, (self.now + delay_s, priority, self._seq, callback))
        self._seq += 1

    def run(self) -> float:
        """Process events until none is left; return the final time."""
        while self._heap:
            time, _prio, _seq, callback = heapq.heappop(self._heap)
            self.now = time
            callback()
        return self.now


@dataclass(frozen=True)
class Op:
    """One operation of a step on one stream."""

    name: str
    stream: str
    """Stream name, e.g. ``stage0/compute`` or ``stage0/comm-dp``."""
    duration_s: float
    category: str
    """What the time is: ``compute``, ``optimizer``, ``comm:<collective>``, ``p2p``."""
    deps: tuple[str, ...] = ()
    """Names of operations that must finish first."""


@dataclass(frozen=True)
class Span:
    """An operation as it ran."""

    name: str
    stream: str
    category: str
    start_s: float
    end_s: float


@dataclass
class _State:
    ops: dict[str, Op]
    queues: dict[str, deque[str]]
    busy: dict[str, bool] = field(default_factory=dict)
    done: set[str] = field(default_factory=set)
    started: dict[str, float] = field(default_factory=dict)
    spans: list[Span] = field(default_factory=list)
    waiters: dict[str, list[str]] = field(default_factory=dict)
    """Unfinished op -> streams whose head waits for it (so a finish wakes only those)."""


def run_ops(ops: Sequence[Op]) -> list[Span]:
    """Simulate ``ops`` (in issue order) on their streams; return the spans in start order.

    Raises:
        Infeasible: an operation depends on an unknown name, or the dependencies deadlock
            (a cycle, or an operation waiting on one queued behind it on the same stream).
    """
    by_name = {op.name: op for op in ops}
    if len(by_name) != len(ops):
        raise Infeasible("operation names must be unique in one step")
    for op in ops:
        missing = [d for d in op.deps if d not in by_name]
        if missing:
            raise Infeasible(f"operation {op.name!r} depends on unknown {missing}")
    queues: dict[str, deque[str]] = {}
    for op in ops:
        queues.setdefault(op.stream, deque()).append(op.name)
    state = _State(ops=by_name, queues=queues, busy=dict.fromkeys(queues, False))
    loop = EventLoop()
    _try_start(loop, state, sorted(queues))
    loop.run()
    if len(state.done) != len(ops):
        stuck = sorted(q[0] for q in state.queues.values() if q)
        raise Infeasible(f"step schedule deadlocks; waiting: {stuck[:5]}")
    return sorted(state.spans, key=lambda s: (s.start_s, s.stream, s.name))


def _try_start(loop: EventLoop, state: _State, streams: Sequence[str]) -> None:
    """Start the head of each of ``streams`` (in the given, sorted order: determinism) if it is
    idle and the head's dependencies are done; otherwise park the stream on a missing dependency."""
    for stream in streams:
        queue = state.queues[stream]
        if state.busy[stream] or not queue:
            continue
        op = state.ops[queue[0]]
        pending = next((d for d in op.deps if d not in state.done), None)
        if pending is not None:
            state.waiters.setdefault(pending, []).append(stream)
            continue
        queue.popleft()
        state.busy[stream] = True
        state.started[op.name] = loop.now
        loop.schedule(op.duration_s, _finisher(loop, state, op))


def _finisher(loop: EventLoop, state: _State, op: Op) -> Callable[[], None]:
    def finish() -> None:
        state.done.add(op.name)
        state.busy[op.stream] = False
        state.spans.append(Span(op.name, op.stream, op.category, state.started[op.name], loop.now))
        woken = set(state.waiters.pop(op.name, ()))
        woken.add(op.stream)
        _try_start(loop, state, sorted(woken))

    return finish
