"""References to catalog entries by id, checked against the catalog with a did-you-mean.

``spec`` sits below ``catalog`` in the layers, so it cannot import it. Instead a resolver -- a
function ``kind -> known ids`` -- is looked up at validation time:

1. ``context={"catalog": resolver}`` passed to ``model_validate`` (or to
   :func:`fabrictwin.spec.load.load_model`) wins;
2. otherwise the resolver registered with :func:`register_resolver`; :mod:`fabrictwin.catalog`
   registers itself when imported (and ``import fabrictwin`` imports it);
3. with neither, ids are accepted unchecked (only possible when ``fabrictwin.spec`` is used
   without the package root, e.g. in isolated unit tests).

Kinds: ``gpu``, ``cpu``, ``nic``, ``switch``, ``fabric``, ``system``, ``model``.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from typing import Annotated, Final

from pydantic import AfterValidator, ValidationInfo
from pydantic_core import PydanticCustomError

Resolver = Callable[[str], Sequence[str]]
"""A function returning the known ids of one catalog kind."""

KINDS: Final = ("gpu", "cpu", "nic", "switch", "fabric", "system", "model")

_registered: list[Resolver] = []


def register_resolver(resolver: Resolver | None) -> None:
    """Set (or with ``None`` clear) the process-wide catalog resolver used when no context is given."""
    _registered.clear()
    if resolver is not None:
        _registered.append(resolver)


def suggest(value: str, choices: Sequence[str]) -> str:
    """The ``did you mean`` tail for ``value`` among ``choices``, or the list of choices."""
    close = difflib.get_close_matches(value, list(choices), n=3, cutoff=0.6)
    if close:
        return "did you mean " + " or ".join(repr(c) for c in close) + "?"
    shown = ", ".join(sorted(choices)[:12])
    more = ", ..." if len(choices) > 12 else ""
    return f"known: {shown}{more}"


def check_id(kind: str, value: str, resolver: Resolver | None) -> str:
    """Return ``value`` when ``resolver`` knows it as a ``kind`` id.

    Raises:
        PydanticCustomError: ``catalog_id`` -- the id is unknown; the message suggests the
            closest known ids.
    """
    if resolver is None:
        return value
    known = resolver(kind)
    if value in known:
        return value
    reason = f"{value!r} is not a known {kind}; {suggest(value, known)}"
    raise PydanticCustomError("catalog_id", "{reason}", {"reason": reason, "kind": kind})


def _active_resolver(info: ValidationInfo) -> Resolver | None:
    context = info.context
    if isinstance(context, dict) and context.get("catalog") is not None:
        resolver: Resolver = context["catalog"]
        return resolver
    return _registered[0] if _registered else None


def catalog_ref(kind: str) -> AfterValidator:
    """A validator that checks a string field is a known catalog id of ``kind``."""
    if kind not in KINDS:
        raise ValueError(f"unknown catalog kind {kind!r}; known: {', '.join(KINDS)}")

    def validate(value: str, info: ValidationInfo) -> str:
        return check_id(kind, value, _active_resolver(info))

    return AfterValidator(validate)


GpuId = Annotated[str, catalog_ref("gpu")]
"""Catalog id of a GPU, e.g. ``h100-sxm``."""
CpuId = Annotated[str, catalog_ref("cpu")]
"""Catalog id of a host CPU."""
NicId = Annotated[str, catalog_ref("nic")]
"""Catalog id of a NIC, SuperNIC or DPU."""
SwitchId = Annotated[str, catalog_ref("switch")]
"""Catalog id of a switch."""
FabricId = Annotated[str, catalog_ref("fabric")]
"""Catalog id of a fabric technology, e.g. ``ib-ndr``."""
SystemId = Annotated[str, catalog_ref("system")]
"""Catalog id of a server system, e.g. ``dgx-h100``."""
ModelId = Annotated[str, catalog_ref("model")]
"""Catalog id of a model of the zoo, e.g. ``llama3-70b``."""
