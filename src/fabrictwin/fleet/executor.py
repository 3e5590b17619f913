"""Crash-safe rollout executor: admission by wave and caps, one step per due device per tick.

Each tick: step every device whose ``next_at`` has come (concurrently, bounded by the HTTP
pool), store all new states and audit entries in one transaction, admit new devices of the
current wave while every ``max_unavailable`` cap and the maintenance window allow, then sleep
on the clock until the next device is due. Nothing lives only in memory: killing the process
at any point and calling :meth:`Executor.resume` continues from the store.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from fabrictwin.errors import SpecError
from fabrictwin.fleet.admission import Admission, window_allows
from fabrictwin.fleet.clock import Clock
from fabrictwin.fleet.drain import DrainAdapter, NoDrain
from fabrictwin.fleet.planner import Plan, device_duration_s, plan_rollout
from fabrictwin.fleet.preflight import preflight
from fabrictwin.fleet.redfish import BlueField, BmcSession, Http, PlatformBmc
from fabrictwin.fleet.state import UNAVAILABLE, DeviceState
from fabrictwin.fleet.steps import Ctx, step
from fabrictwin.fleet.store import AuditEntry, Store
from fabrictwin.spec.fleet import DeviceRef, RolloutSpec


@dataclass
class RolloutResult:
    """How a rollout ended."""

    name: str
    status: str
    """completed, or halted (failure budget exceeded)."""
    makespan_s: float
    phases: dict[str, int]
    reasons: dict[str, str] = field(default_factory=dict)
    """Device -> why it was rolled back or quarantined."""


@dataclass
class Credentials:
    """BMC login (the same for the DPU BMCs and the platform BMCs of a fleet)."""

    username: str
    password: str


class Executor:
    """Runs one rollout over a fleet."""

    def __init__(
        self,
        spec: RolloutSpec,
        fleet: Sequence[DeviceRef],
        store: Store,
        http: Http,
        clock: Clock,
        credentials: Credentials,
        drain: DrainAdapter | None = None,
        on_tick: Callable[[dict[str, DeviceState]], None] | None = None,
    ) -> None:
        self.spec, self.store, self.http, self.clock = spec, store, http, clock
        self.refs = {d.name: d for d in fleet}
        self.drain = drain or NoDrain()
        self.on_tick = on_tick
        self.bmcs = {
            n: BlueField(BmcSession(http, d.bmc_url, n, credentials.username, credentials.password))
            for n, d in self.refs.items()
        }
        self.platforms = {
            n: PlatformBmc(
                BmcSession(http, d.platform_url, f"{n}/platform", credentials.username, credentials.password)
            )
            for n, d in self.refs.items()
            if d.platform_url
        }
        self.states: dict[str, DeviceState] = {}
        self.admission = Admission(spec.constraints.max_unavailable)
        self.started_at = 0.0
        self.resumed: set[str] = set()
        self.halted = ""
        self.wave_open_at: dict[int, float] = {}

    # entry points ---------------------------------------------------------------------------

    async def start(self) -> RolloutResult:
        """Check every device, plan, store, run. Bad input raises before anything changes.

        Raises :class:`SpecError` / :class:`DeviceError` (from the preflight) naming the device
        and the cause; nothing is drained or pushed then.
        """
        if self.store.exists(self.spec.name):
            raise SpecError(
                f"a rollout named {self.spec.name!r} already exists; use 'rollout resume' or a new name"
            )
        versions = await preflight(self.spec, list(self.refs.values()), self.bmcs)
        plan = plan_rollout(self.spec, list(self.refs.values()))
        self.started_at = self.clock.now()
        waves = plan.wave_of()
        initial = []
        for name in self.refs:
            version, mode = versions[name]
            s = DeviceState(name, waves[name], since=self.started_at, nic_mode=mode == "NicMode")
            if version == self.spec.target.version:
                s = s.to("skipped", self.started_at, reason="already at the target version")
            self.states[name] = s
            initial.append(s)
        self.store.create_rollout(
            self.spec.name,
            self.spec.model_dump(mode="json"),
            plan_record(plan),
            self.started_at,
            [(s.device, s.phase, s.to_record()) for s in initial],
            [AuditEntry("*", self.started_at, "start", {"devices": len(initial)})],
        )
        return await self._loop()

    async def resume(self) -> RolloutResult:
        """Continue a stored rollout after the controller stopped (or was killed).

        Raises :class:`NotFound` when the store has no rollout of this name.
        """
        row = self.store.rollout(self.spec.name)
        self.started_at = row.started_at
        if row.status == "halted":  # a halt survives restarts; only in-flight devices finish
            self.halted = row.detail or "halted"
        self.states = {n: DeviceState.from_record(r) for n, r in self.store.states(self.spec.name).items()}
        missing = set(self.refs) - set(self.states)
        if missing:
            raise SpecError(f"devices not in the stored rollout: {', '.join(sorted(missing)[:5])}")
        self.resumed = {n for n, s in self.states.items() if s.phase == "push"}
        for s in self.states.values():
            if s.phase in UNAVAILABLE:
                self.admission.admit(self.refs[s.device])
        self.store.save(self.spec.name, [], [AuditEntry("*", self.clock.now(), "resume", {})])
        return await self._loop()

    # the loop -------------------------------------------------------------------------------

    async def _loop(self) -> RolloutResult:
        while True:
            now = self.clock.now()
            await self._tick(now)
            self._admit(now)
            if self.on_tick is not None:
                self.on_tick(self.states)
            active = [s for s in self.states.values() if not s.terminal and s.phase != "pending"]
            pending = [s for s in self.states.values() if s.phase == "pending"]
            if not active and (not pending or self.halted):
                return self._finish()
            due = [s.next_at for s in active] + self._next_admission_times(now, pending)
            await self.clock.sleep_until(max(min(due, default=now + 1.0), now))

    async def _tick(self, now: float) -> None:
        due = [
            s for s in self.states.values() if not s.terminal and s.phase != "pending" and s.next_at <= now
        ]
        if not due:
            return
        ctxs = [self._ctx(s, now) for s in due]
        new = await asyncio.gather(*(step(s, c) for s, c in zip(due, ctxs, strict=True)))
        changed = [n for n, old in zip(new, due, strict=True) if n != old]
        for old, s in zip(due, new, strict=True):
            self.states[s.device] = s
            if old.phase in UNAVAILABLE and s.phase not in UNAVAILABLE:
                self.admission.release(self.refs[s.device])
            if s.device in self.resumed and s.phase != "push":
                self.resumed.discard(s.device)
        entries = [e for c in ctxs for e in c.audit]
        self.store.save(self.spec.name, [(s.device, s.phase, s.to_record()) for s in changed], entries)
        self._check_budget(now)

    def _ctx(self, s: DeviceState, now: float) -> Ctx:
        ref = self.refs[s.device]
        return Ctx(
            ref,
            self.bmcs[s.device],
            self.platforms.get(s.device),
            self.drain,
            self.spec,
            now,
            check_before_push=s.device in self.resumed,
        )

    def _check_budget(self, now: float) -> None:
        failed = sum(1 for s in self.states.values() if s.reason and s.phase != "skipped")
        budget = self.spec.constraints.failure_budget * len(self.states)
        if failed > budget and not self.halted:
            self.halted = f"{failed} devices failed, over the budget of {budget:.0f}"
            self.store.set_status(self.spec.name, "halted", self.halted)
            self.store.save(self.spec.name, [], [AuditEntry("*", now, "halt", {"reason": self.halted})])

    # admission ------------------------------------------------------------------------------

    def _current_wave(self, now: float) -> int | None:
        """Lowest wave with pending devices, if every earlier wave is finished and soaked."""
        waves = sorted({s.wave for s in self.states.values() if s.phase == "pending"})
        if not waves:
            return None
        w = waves[0]
        # A device rolling back has already given its verdict; its slot stays taken, but the
        # next wave need not wait for the rollback to finish.
        if any(not s.terminal and s.image == "target" for s in self.states.values() if s.wave < w):
            return None
        if w not in self.wave_open_at:
            soak = self.spec.constraints.soak_s if w > 0 else 0.0
            self.wave_open_at[w] = now + soak
        return w if now >= self.wave_open_at[w] else None

    def _admit(self, now: float) -> None:
        if self.halted:
            return
        wave = self._current_wave(now)
        if wave is None:
            return
        admitted: list[DeviceState] = []
        rate = self.spec.durations.stream_Bps
        expected = device_duration_s(self.spec, rate, power_cycle=False)
        waiting = [s for s in self.states.values() if s.phase == "pending" and s.wave == wave]
        left = Counter(self.refs[s.device].rack for s in waiting)
        # Racks with the most work left go first (as in the planner), so none starves behind a
        # shared cap (pod, tenant, fleet) and the last rack does not set the makespan alone.
        for s in sorted(waiting, key=lambda s: (-left[self.refs[s.device].rack], s.device)):
            ref = self.refs[s.device]
            if not self.admission.can_admit(ref):
                continue
            if not window_allows(self.spec.constraints.windows, now - self.started_at, expected):
                break
            self.admission.admit(ref)
            admitted.append(s.to("drain", now))
        for s in admitted:
            self.states[s.device] = s
        entries = [AuditEntry(s.device, now, "admit", {"wave": wave}) for s in admitted]
        self.store.save(self.spec.name, [(s.device, s.phase, s.to_record()) for s in admitted], entries)

    def _next_admission_times(self, now: float, pending: list[DeviceState]) -> list[float]:
        if self.halted or not pending:
            return []
        times = [t for t in self.wave_open_at.values() if t > now]
        for w in self.spec.constraints.windows:
            if w.start_s + self.started_at > now:
                times.append(w.start_s + self.started_at)
        return times

    def _finish(self) -> RolloutResult:
        now = self.clock.now()
        status = "halted" if self.halted else "completed"
        self.store.set_status(self.spec.name, status, self.halted)
        self.store.save(self.spec.name, [], [AuditEntry("*", now, status, {"reason": self.halted})])
        phases: Counter[str] = Counter(str(s.phase) for s in self.states.values())
        reasons = {n: s.reason for n, s in self.states.items() if s.phase in ("rolled_back", "quarantined")}
        return RolloutResult(self.spec.name, status, now - self.started_at, dict(phases), reasons)


def plan_record(plan: Plan) -> dict[str, object]:
    """A compact JSON record of a plan (the store keeps it next to the rollout)."""
    return {
        "makespan_s": plan.makespan_s,
        "lower_bound_s": plan.lower_bound_s,
        "waves": [
            {
                "index": w.index,
                "devices": len(w.devices),
                "start_s": w.start_s,
                "end_s": w.end_s,
                "lower_bound_s": w.lower_bound_s,
                "binding": w.binding,
            }
            for w in plan.waves
        ],
    }


__all__ = ["Credentials", "Executor", "RolloutResult", "plan_record"]
