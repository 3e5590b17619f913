"""The catalog: real GPUs, CPUs, NICs/DPUs, switches, fabrics, systems and models, each number sourced.

Accessors return frozen specs::

    from fabrictwin import catalog
    catalog.gpu("h100-sxm").peak_flops["bf16"]     # 989e12 FLOP/s
    catalog.fabric("ib-ndr").link_bps              # 400e9 bit/s
    catalog.ids("system")                          # ['dgx-1-v100', 'dgx-a100', ...]

Data lives in ``catalog/data/<kind>s.yaml`` (``switches.yaml``), one list ``entries`` per file,
read once through :mod:`fabrictwin.spec.load`, on first use. Importing this package registers it as the
resolver that checks catalog ids in specs (:mod:`fabrictwin.spec.refs`).
"""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path
from typing import Final, Generic, TypeVar

from fabrictwin.errors import NotFound, SpecError
from fabrictwin.spec.base import Spec
from fabrictwin.spec.cluster import ClusterSpec
from fabrictwin.spec.hardware import CpuSpec, FabricSpec, GpuSpec, NicSpec, SwitchSpec, SystemSpec
from fabrictwin.spec.load import load_mapping, load_model
from fabrictwin.spec.refs import KINDS, register_resolver, suggest
from fabrictwin.spec.workload import ModelSpec

T = TypeVar("T", bound=Spec)

_SPEC_OF: Final[dict[str, type[Spec]]] = {
    "gpu": GpuSpec,
    "cpu": CpuSpec,
    "nic": NicSpec,
    "switch": SwitchSpec,
    "fabric": FabricSpec,
    "system": SystemSpec,
    "model": ModelSpec,
}


class UnknownId(NotFound, SpecError):
    """A catalog id that does not exist (both a lookup miss and bad input)."""


class CatalogFile(Spec, Generic[T]):
    """The shape of one data file: a list of entries of one kind."""

    entries: list[T]
    """The catalog entries, each with a unique ``id``."""


def _data_name(kind: str) -> str:
    return "switches.yaml" if kind == "switch" else f"{kind}s.yaml"


@functools.cache
def _entries(kind: str) -> dict[str, Spec]:
    """All entries of ``kind`` by id, loaded once from the package data.

    Raises:
        SpecError: a data file breaks a spec rule or repeats an id.
    """
    name = _data_name(kind)
    text = resources.files(__name__).joinpath("data", name).read_text(encoding="utf-8")
    return parse_entries(kind, text, f"catalog/data/{name}")


def parse_entries(kind: str, text: str, name: str) -> dict[str, Spec]:
    """Validate catalog YAML ``text`` of ``kind`` (messages name it ``name``); entries by id.

    Raises:
        SpecError: an entry breaks a spec rule, or an id appears twice.
    """
    doc = load_mapping(name, text=text)
    file_model: type[CatalogFile[Spec]] = CatalogFile[_SPEC_OF[kind]]  # type: ignore[valid-type]
    loaded = doc.validate(file_model)
    by_id: dict[str, Spec] = {}
    for i, entry in enumerate(loaded.entries):
        entry_id = str(getattr(entry, "id"))  # noqa: B009 - every catalog spec has an id
        if entry_id in by_id:
            raise doc.error(("entries", i, "id"), f"id {entry_id!r} appears twice")
        by_id[entry_id] = entry
    return by_id


def _check_kind(kind: str) -> None:
    if kind not in _SPEC_OF:
        raise UnknownId(f"{kind!r} is not a catalog kind; {suggest(kind, KINDS)}")


def ids(kind: str) -> list[str]:
    """Sorted ids of one kind: ``gpu``, ``cpu``, ``nic``, ``switch``, ``fabric``, ``system``,
    ``model``, or ``dpu`` (the NICs of kind ``dpu``).

    Raises:
        UnknownId: ``kind`` is not a catalog kind.
    """
    if kind == "dpu":
        return [key for key, entry in sorted(_entries("nic").items()) if getattr(entry, "kind", "") == "dpu"]
    _check_kind(kind)
    return sorted(_entries(kind))


def entries(kind: str) -> list[Spec]:
    """Every entry of one kind, sorted by id.

    Raises:
        UnknownId: ``kind`` is not a catalog kind.
    """
    _check_kind(kind)
    table = _entries(kind)
    return [table[key] for key in sorted(table)]


def get(kind: str, entry_id: str) -> Spec:
    """The entry ``entry_id`` of ``kind`` (``dpu``: a NIC of kind ``dpu``).

    Raises:
        UnknownId: unknown kind or id; the message suggests the closest ids.
    """
    known = ids(kind)
    if entry_id not in known:
        raise UnknownId(f"{entry_id!r} is not a known {kind}; {suggest(entry_id, known)}")
    return _entries("nic" if kind == "dpu" else kind)[entry_id]


SEARCH_ORDER: Final = ("system", "gpu", "cpu", "nic", "switch", "fabric", "model")
"""Kinds searched by :func:`find`, in order."""


def find(entry_id: str) -> tuple[str, Spec]:
    """The kind and entry of ``entry_id``, whatever its kind (ids are unique across kinds).

    Raises:
        UnknownId: no kind has this id; the message suggests the closest ids of any kind.
    """
    for kind in SEARCH_ORDER:
        if entry_id in _entries(kind):
            return kind, _entries(kind)[entry_id]
    every = [key for kind in SEARCH_ORDER for key in _entries(kind)]
    raise UnknownId(f"{entry_id!r} is not in the catalog; {suggest(entry_id, every)}")


def _typed(kind: str, entry_id: str, cls: type[T]) -> T:
    entry = get(kind, entry_id)
    assert isinstance(entry, cls)  # guaranteed by _SPEC_OF; narrows the type for callers
    return entry


def gpu(entry_id: str) -> GpuSpec:
    """A GPU by id, e.g. ``h100-sxm``. Raises :class:`UnknownId` with a did-you-mean."""
    return _typed("gpu", entry_id, GpuSpec)


def cpu(entry_id: str) -> CpuSpec:
    """A host CPU by id. Raises :class:`UnknownId` with a did-you-mean."""
    return _typed("cpu", entry_id, CpuSpec)


def nic(entry_id: str) -> NicSpec:
    """A NIC, SuperNIC or DPU by id, e.g. ``cx7-ndr``. Raises :class:`UnknownId`."""
    return _typed("nic", entry_id, NicSpec)


def switch(entry_id: str) -> SwitchSpec:
    """A switch by id, e.g. ``qm9700``. Raises :class:`UnknownId` with a did-you-mean."""
    return _typed("switch", entry_id, SwitchSpec)


def fabric(entry_id: str) -> FabricSpec:
    """A fabric technology by id, e.g. ``ib-ndr``. Raises :class:`UnknownId`."""
    return _typed("fabric", entry_id, FabricSpec)


def system(entry_id: str) -> SystemSpec:
    """A server system by id, e.g. ``dgx-h100``. Raises :class:`UnknownId`."""
    return _typed("system", entry_id, SystemSpec)


def model(entry_id: str) -> ModelSpec:
    """A model of the zoo by id, e.g. ``llama3-70b``. Raises :class:`UnknownId`."""
    return _typed("model", entry_id, ModelSpec)


class _CatalogResolver:
    """This catalog as the :class:`fabrictwin.spec.refs.Resolver` that spec validation consults."""

    def ids(self, kind: str) -> list[str]:
        return ids(kind)

    def get(self, kind: str, entry_id: str) -> Spec:
        return get(kind, entry_id)


RESOLVER: Final = _CatalogResolver()
"""Pass as ``context={"catalog": RESOLVER}`` to validate against this catalog explicitly."""

register_resolver(RESOLVER)


def load_cluster(source: str | Path, *, text: str | None = None) -> ClusterSpec:
    """Load a cluster file (or ``text``, named ``source`` in messages), checked against this catalog.

    It lives here rather than in ``spec`` because checking ids needs the catalog, which sits
    above ``spec`` in the layers.

    Raises:
        SpecError: the file breaks a rule (located by file, line and YAML path), including
            unknown catalog ids (with a did-you-mean) and choices the named hardware cannot do.
    """
    return load_model(source, ClusterSpec, text=text, context={"catalog": RESOLVER})


__all__ = [
    "RESOLVER",
    "CatalogFile",
    "UnknownId",
    "cpu",
    "entries",
    "fabric",
    "find",
    "get",
    "gpu",
    "ids",
    "load_cluster",
    "model",
    "nic",
    "parse_entries",
    "switch",
    "system",
]
