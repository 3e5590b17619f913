"""The discrete-event core and the stream scheduler, tested by whole traces."""

from __future__ import annotations

import pytest

from fabrictwin.errors import Infeasible
from fabrictwin.timeline.events import EventLoop, Op, run_ops


def test_events_at_the_same_time_run_by_priority_then_insertion_order() -> None:
    loop = EventLoop()
    log: list[str] = []
    loop.schedule(1.0, lambda: log.append("b"), priority=1)
    loop.schedule(1.0, lambda: log.append("a"), priority=0)
    loop.schedule(1.0, lambda: log.append("c"), priority=1)
    loop.schedule(0.5, lambda: log.append("first"))
    assert loop.run() == 1.0
    assert log == ["first", "a", "b", "c"]


def test_a_negative_delay_is_refused() -> None:
    with pytest.raises(ValueError):
        EventLoop().schedule(-1.0, lambda: None)


def test_ops_on_one_stream_run_in_issue_order_and_wait_for_dependencies() -> None:
    # compute: F (0-2), B (2-5); comm: AR waits for F, runs 2-3.5; opt waits for AR and B: 5-6.
    ops = [
        Op("F", "gpu/compute", 2.0, "compute"),
        Op("B", "gpu/compute", 3.0, "compute"),
        Op("AR", "gpu/comm", 1.5, "comm:dp_all_reduce", ("F",)),
        Op("opt", "gpu/compute", 1.0, "optimizer", ("AR",)),
    ]
    trace = [(s.name, s.start_s, s.end_s) for s in run_ops(ops)]
    assert trace == [("F", 0.0, 2.0), ("AR", 2.0, 3.5), ("B", 2.0, 5.0), ("opt", 5.0, 6.0)]


def test_a_dependency_on_an_op_queued_behind_on_the_same_stream_deadlocks() -> None:
    ops = [Op("A", "s", 1.0, "compute", ("B",)), Op("B", "s", 1.0, "compute")]
    with pytest.raises(Infeasible, match="deadlock"):
        run_ops(ops)


def test_an_unknown_dependency_is_reported_by_name() -> None:
    with pytest.raises(Infeasible, match="ghost"):
        run_ops([Op("A", "s", 1.0, "compute", ("ghost",))])


def test_the_same_ops_give_the_same_trace_every_time() -> None:
    ops = [Op(f"o{i}", f"s{i % 3}", 0.5, "compute", (f"o{i - 3}",) if i >= 3 else ()) for i in range(30)]
    assert run_ops(ops) == run_ops(ops)
