"""Unit-bearing field types: a YAML value like ``'80GiB'`` becomes an SI float once, here.

Use the aliases in spec classes::

    class GpuSpec(Spec):
        hbm_bytes: Bytes = Field(gt=0)
        \"\"\"HBM capacity in bytes.\"\"\"

A bare number is taken as already SI; a string must carry a unit of the field's dimension
(see :func:`fabrictwin.units.parse_quantity`). Range constraints (``Field(gt=0)``) apply to the
converted SI value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from pydantic import BeforeValidator
from pydantic_core import PydanticCustomError

from fabrictwin.units import parse_quantity


def Quantity(dimension: str) -> BeforeValidator:
    """A validator converting a human quantity of ``dimension`` (``bytes``, ``time``, ...) to SI.

    Raises (at validation time) a pydantic ``quantity`` error whose message names the bad
    value and the accepted units, which :mod:`fabrictwin.spec.load` turns into a ``SpecError``.
    """
    return BeforeValidator(_converter(dimension))


def _converter(dimension: str) -> Callable[[object], object]:
    def convert(value: object) -> object:
        if value is None:
            return value  # let an optional field stay None; a required one fails as a float
        try:
            return parse_quantity(value, dimension)
        except ValueError as exc:
            raise PydanticCustomError("quantity", "{reason}", {"reason": str(exc)}) from None

    return convert


Bytes = Annotated[float, Quantity("bytes")]
"""Bytes (accepts ``80GiB``, ``1.5TB``, ``512MiB``)."""
Seconds = Annotated[float, Quantity("time")]
"""Seconds (accepts ``2.5us``, ``10ms``, ``3h``)."""
BytesPerS = Annotated[float, Quantity("bytes_per_s")]
"""Bytes per second (accepts ``3.35TB/s``, ``400Gb/s``)."""
BitsPerS = Annotated[float, Quantity("bits_per_s")]
"""Bits per second, line rates (accepts ``400Gb/s``, ``100Gbps``)."""
FlopsPerS = Annotated[float, Quantity("flops")]
"""FLOP per second (accepts ``989TFLOP/s``)."""
Flop = Annotated[float, Quantity("flop")]
"""FLOP count (accepts ``4.1GFLOP``)."""
Watts = Annotated[float, Quantity("watts")]
"""Watts (accepts ``700W``, ``10.2kW``)."""
Hertz = Annotated[float, Quantity("hertz")]
"""Hertz (accepts ``2.0GHz``)."""
