"""References to catalog entries by id, checked against the catalog with a did-you-mean.

``spec`` sits below ``catalog`` in the layers, so it cannot import it. Instead a *resolver* (any
object with ``ids(kind)`` and ``get(kind, id)``, see :class:`Resolver`) is looked up at
validation time:

1. ``context={"catalog": resolver}`` passed to ``model_validate`` (or to
   :func:`fabrictwin.spec.load.load_model`) wins;
2. otherwise the resolver registered with :func:`register_resolver`; :mod:`fabrictwin.catalog`
   registers itself when imported (also on first use of ``fabrictwin.catalog`` or
   ``fabrictwin.load_cluster``; the package root loads it lazily so the control plane never does);
3. with neither, ids are accepted unchecked (only when ``fabrictwin.spec`` is used without the
   catalog, e.g. in isolated unit tests of a spec class). ``fabrictwin.catalog.load_cluster``
   passes the catalog explicitly, so cluster files are always checked.

Kinds: ``gpu``, ``cpu``, ``nic``, ``dpu`` (the NICs of kind ``dpu``), ``switch``, ``fabric``,
``system``, ``model``.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Annotated, Final, Protocol

from pydantic import AfterValidator, BaseModel, ValidationInfo
from pydantic_core import PydanticCustomError

KINDS: Final = ("gpu", "cpu", "nic", "dpu", "switch", "fabric", "system", "model")


class Resolver(Protocol):
    """What spec validation needs from a catalog."""

    def ids(self, kind: str) -> Sequence[str]:
        """Known ids of one kind."""
        ...

    def get(self, kind: str, entry_id: str) -> BaseModel:
        """The spec of one entry (raises when unknown)."""
        ...


_registered: list[Resolver] = []


def register_resolver(resolver: Resolver | None) -> None:
    """Set (or with ``None`` clear) the process-wide resolver used when no context is given."""
    _registered.clear()
    if resolver is not None:
        _registered.append(resolver)


def active_resolver(info: ValidationInfo | None = None) -> Resolver | None:
    """The resolver of this validation: the context's ``catalog``, else the registered one."""
    context = info.context if info is not None else None
    if isinstance(context, dict) and context.get("catalog") is not None:
        resolver: Resolver = context["catalog"]
        return resolver
    return _registered[0] if _registered else None


def suggest(value: str, choices: Sequence[str]) -> str:
    """The ``did you mean`` tail for ``value`` among ``choices``, or the list of choices."""
    scored = sorted((-difflib.SequenceMatcher(None, value, c).ratio(), c) for c in choices)
    best = -scored[0][0] if scored else 0.0
    # keep the near-ties of the best match only: 'ib-ndrr' -> 'ib-ndr', not also 'ib-hdr'
    close = [c for neg, c in scored[:3] if -neg >= max(0.6, best - 0.05)]
    if close:
        return "did you mean " + " or ".join(repr(c) for c in close) + "?"
    shown = ", ".join(sorted(choices)[:12])
    more = ", ..." if len(choices) > 12 else ""
    return f"known: {shown}{more}"


def check_id(kind: str, value: str, resolver: Resolver | None, noun: str = "") -> str:
    """Return ``value`` when ``resolver`` knows it as a ``kind`` id (or when there is no resolver).

    Raises:
        PydanticCustomError: ``catalog_id`` -- the id is unknown; the message (``'ib-ndrr' is not a
            known link; did you mean 'ib-ndr'?``) names it as a ``noun`` (default: the kind).
    """
    if resolver is None:
        return value
    known = resolver.ids(kind)
    if value in known:
        return value
    reason = f"{value!r} is not a known {noun or kind}; {suggest(value, known)}"
    raise PydanticCustomError("catalog_id", "{reason}", {"reason": reason, "kind": kind})


def lookup(kind: str, entry_id: str, info: ValidationInfo | None = None) -> BaseModel | None:
    """The catalog spec of ``entry_id`` for cross-checks, or None without a resolver or when unknown."""
    resolver = active_resolver(info)
    if resolver is None or entry_id not in resolver.ids(kind):
        return None
    return resolver.get("nic" if kind == "dpu" else kind, entry_id)


def catalog_ref(kind: str, noun: str = "") -> AfterValidator:
    """A validator checking that a string field is a known catalog id of ``kind``.

    ``noun`` is how messages name the thing (``link`` for a fabric id in a cluster file).
    """
    if kind not in KINDS:
        raise ValueError(f"unknown catalog kind {kind!r}; known: {', '.join(KINDS)}")

    def validate(value: str, info: ValidationInfo) -> str:
        return check_id(kind, value, active_resolver(info), noun)

    return AfterValidator(validate)


GpuId = Annotated[str, catalog_ref("gpu")]
"""Catalog id of a GPU, e.g. ``h100-sxm``."""
CpuId = Annotated[str, catalog_ref("cpu")]
"""Catalog id of a host CPU."""
NicId = Annotated[str, catalog_ref("nic")]
"""Catalog id of a NIC, SuperNIC or DPU."""
DpuId = Annotated[str, catalog_ref("dpu")]
"""Catalog id of a BlueField DPU (a NIC of kind ``dpu``), e.g. ``bf3-b3220``."""
SwitchId = Annotated[str, catalog_ref("switch")]
"""Catalog id of a switch."""
FabricId = Annotated[str, catalog_ref("fabric")]
"""Catalog id of a fabric technology, e.g. ``ib-ndr``."""
LinkId = Annotated[str, catalog_ref("fabric", noun="link")]
"""A fabric technology id named as a ``link`` in messages (cluster files)."""
SystemId = Annotated[str, catalog_ref("system")]
"""Catalog id of a server system, e.g. ``dgx-h100``."""
ModelId = Annotated[str, catalog_ref("model")]
"""Catalog id of a model of the zoo, e.g. ``llama3-70b``."""
