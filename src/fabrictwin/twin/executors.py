"""Executors: run one function over many items, locally or on a cluster, behind one interface.

``Executor.map(fn, items, progress)`` yields ``fn(item)`` for every item *in the items' order*,
whatever order the work finishes in, and calls ``progress(done, total)`` as results arrive. ``fn``
must be a module-level function and items and results picklable (they cross processes).

Small tasks are sent in batches: a sweep point takes ~35 ms to simulate, while a round trip
through a Dask or Ray scheduler costs ~ms, and the tooling notes measured that 10k small tasks
are only practical batched (/work/shared/reference/tooling-notes.md, "Distributed executors").

* :class:`LocalExecutor` -- in this process, or a process pool (``processes > 0``);
* :class:`DaskExecutor` -- a ``distributed`` scheduler at ``address``, or a local cluster it
  starts and stops itself (threads in this process by default: no sockets, ~1 s to start);
* :class:`RayExecutor` -- a Ray cluster (optional extra ``ray``, imported only when used).

``distributed`` and ``ray`` are imported inside the classes that use them, not at module import:
the model core's import-linter contracts allow them (they are neither YAML, HTTP, database, web
nor terminal libraries), but ``import distributed`` costs ~1 s and Ray may not be installed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Protocol, TypeVar

from fabrictwin.errors import FabricTwinError

T = TypeVar("T")
R = TypeVar("R")
Progress = Callable[[int, int], None]
"""``progress(done, total)``: items finished so far and items in all."""

# Tasks per batch when none is given: about 8 batches per worker keeps every worker busy to the
# end (load balance) while the per-task overhead is paid once per batch.
BATCHES_PER_WORKER = 8


class MissingExtra(FabricTwinError):
    """An optional dependency needed by the chosen executor is not installed."""


class Executor(Protocol):
    """Runs ``fn`` over ``items`` and yields the results in the items' order."""

    def map(self, fn: Callable[[T], R], items: Sequence[T], progress: Progress | None = None) -> Iterator[R]:
        """``fn(item)`` for each item, in order; ``progress(done, total)`` as they finish."""
        ...

    def close(self) -> None:
        """Release workers and clusters this executor started (idempotent)."""
        ...


def batches(n_items: int, workers: int, batch_size: int | None = None) -> list[range]:
    """Split ``range(n_items)`` into consecutive batches (``batch_size`` each, or about
    ``BATCHES_PER_WORKER`` per worker when ``None``).

    Raises:
        ValueError: ``batch_size`` or ``workers`` below 1.
    """
    if workers < 1 or (batch_size is not None and batch_size < 1):
        raise ValueError(f"workers ({workers}) and batch_size ({batch_size}) must be >= 1")
    size = batch_size or max(1, math.ceil(n_items / (workers * BATCHES_PER_WORKER)))
    return [range(i, min(i + size, n_items)) for i in range(0, n_items, size)]


def run_batch(fn: Callable[[T], R], chunk: list[T]) -> list[R]:
    """``[fn(x) for x in chunk]``: the unit of work shipped to a worker."""
    return [fn(x) for x in chunk]


class _Ordered:
    """Collects finished batches and releases results in item order."""

    def __init__(self, chunks: list[range], progress: Progress | None) -> None:
        self._chunks = chunks
        self._results: dict[int, list[Any]] = {}
        self._next = 0
        self._done = 0
        self._total = sum(len(c) for c in chunks)
        self._progress = progress

    def add(self, batch_index: int, results: list[Any]) -> Iterator[Any]:
        """Record batch ``batch_index`` and yield every result now in order."""
        self._results[batch_index] = results
        self._done += len(results)
        if self._progress:
            self._progress(self._done, self._total)
        while self._next in self._results:
            yield from self._results.pop(self._next)
            self._next += 1


class LocalExecutor:
    """In this process (``processes=0``), or on a pool of ``processes`` worker processes."""

    def __init__(self, processes: int = 0, batch_size: int | None = None) -> None:
        self.processes = processes
        self.batch_size = batch_size
        self._pool: ProcessPoolExecutor | None = None

    def map(self, fn: Callable[[T], R], items: Sequence[T], progress: Progress | None = None) -> Iterator[R]:
        """See :class:`Executor`."""
        if self.processes <= 0:
            for i, item in enumerate(items):
                yield fn(item)
                if progress:
                    progress(i + 1, len(items))
            return
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.processes)
        chunks = batches(len(items), self.processes, self.batch_size)
        order = _Ordered(chunks, progress)
        futures = [self._pool.submit(run_batch, fn, [items[i] for i in c]) for c in chunks]
        for index, future in enumerate(futures):
            yield from order.add(index, future.result())

    def close(self) -> None:
        """Shut the process pool down, if one was started."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None


class DaskExecutor:
    """Dask.distributed: the scheduler at ``address``, or a local cluster started here.

    Without ``address``: ``workers`` workers of ``threads`` threads each, in this process
    (``processes=False``, no sockets) or as worker processes on 127.0.0.1 (``processes=True``:
    simulations are pure Python and hold the GIL, so only processes run them in parallel).
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        workers: int = 1,
        threads: int = 1,
        processes: bool = False,
        batch_size: int | None = None,
    ) -> None:
        try:
            import distributed
        except ImportError as exc:  # declared in the dependencies; only a broken install lacks it
            raise MissingExtra(
                "the dask executor needs dask.distributed: pip install 'dask[distributed]'"
            ) from exc
        self._cluster: Any = None
        if address is None:
            # worker processes talk TCP: keep them on loopback; threads use in-process comms
            where = {"host": "127.0.0.1"} if processes else {}
            self._cluster = distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=threads,
                processes=processes,
                # no dashboard; its HTTP server (health routes) still starts: loopback, any port
                dashboard_address="127.0.0.1:0",
                scheduler_kwargs={"dashboard": False},
                **where,
            )
            address = self._cluster
        try:
            self._client: Any = distributed.Client(address, set_as_default=False)
        except BaseException:
            if self._cluster is not None:  # do not leave the cluster we started behind
                self._cluster.close()
            raise
        self.workers = max(1, workers if self._cluster else len(self._client.nthreads()))
        self.batch_size = batch_size

    def map(self, fn: Callable[[T], R], items: Sequence[T], progress: Progress | None = None) -> Iterator[R]:
        """See :class:`Executor`. Batches run wherever the scheduler puts them; results come back
        in order."""
        import distributed

        chunks = batches(len(items), self.workers, self.batch_size)
        futures = [self._client.submit(run_batch, fn, [items[i] for i in c], pure=False) for c in chunks]
        index_of = {f.key: i for i, f in enumerate(futures)}
        order = _Ordered(chunks, progress)
        with self._client.as_current():  # as_completed looks the client up; it is not the default
            finished = distributed.as_completed(futures)
        for future in finished:
            yield from order.add(index_of[future.key], future.result())

    def close(self) -> None:
        """Close the client, and the local cluster if this executor started it."""
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None


class RayExecutor:
    """Ray: the cluster at ``address`` (``"auto"`` for a running local one; ``None`` starts one).

    Raises:
        MissingExtra: Ray is not installed (``pip install 'fabrictwin[ray]'``).
    """

    def __init__(self, address: str | None = None, *, batch_size: int | None = None) -> None:
        try:
            import ray
        except ImportError as exc:
            raise MissingExtra(
                "the ray executor needs Ray, an optional extra: pip install 'fabrictwin[ray]'"
            ) from exc
        self._ray: Any = ray
        self._started = not ray.is_initialized()
        if self._started:
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
        self.workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
        self.batch_size = batch_size
        self._remote = ray.remote(run_batch)

    def map(self, fn: Callable[[T], R], items: Sequence[T], progress: Progress | None = None) -> Iterator[R]:
        """See :class:`Executor`."""
        chunks = batches(len(items), self.workers, self.batch_size)
        refs = [self._remote.remote(fn, [items[i] for i in c]) for c in chunks]
        index_of = {ref: i for i, ref in enumerate(refs)}
        order = _Ordered(chunks, progress)
        pending = list(refs)
        while pending:
            ready, pending = self._ray.wait(pending, num_returns=1)
            yield from order.add(index_of[ready[0]], self._ray.get(ready[0]))

    def close(self) -> None:
        """Disconnect from Ray, shutting down the local Ray this executor started."""
        if self._started:
            self._ray.shutdown()
            self._started = False


def make_executor(
    kind: str, *, address: str | None = None, workers: int = 1, batch_size: int | None = None
) -> Executor:
    """An executor by name: ``local`` (``workers`` > 1: a process pool), ``dask``, ``ray``.

    Raises:
        ValueError: an unknown ``kind``.
        MissingExtra: the library of ``dask`` / ``ray`` is not installed.
    """
    if kind == "local":
        return LocalExecutor(processes=workers if workers > 1 else 0, batch_size=batch_size)
    if kind == "dask":
        return DaskExecutor(address, workers=workers, processes=workers > 1, batch_size=batch_size)
    if kind == "ray":
        return RayExecutor(address, batch_size=batch_size)
    raise ValueError(f"unknown executor {kind!r}: local, dask or ray")
