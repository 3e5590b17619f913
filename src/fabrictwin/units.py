"""SI units and human-unit parsing.

Inside fabrictwin every quantity is an SI float: bytes, seconds, bytes/s, bits/s only where
named ``_bps``, FLOP/s, watts. Human units (``400Gb/s``, ``80GiB``, ``2.5us``) are converted
once at the edge by :func:`parse_quantity`.
"""

from __future__ import annotations

import re
from typing import Final

KB: Final = 1e3
MB: Final = 1e6
GB: Final = 1e9
TB: Final = 1e12
KiB: Final = 1024.0
MiB: Final = 1024.0**2
GiB: Final = 1024.0**3
TiB: Final = 1024.0**4

US: Final = 1e-6
NS: Final = 1e-9
MS: Final = 1e-3

TFLOPS: Final = 1e12
PFLOPS: Final = 1e15


def gbps_to_Bps(gbps: float) -> float:
    """Gigabits per second (line rate) to bytes per second."""
    return gbps * 1e9 / 8.0


def Bps_to_gbps(Bps: float) -> float:
    """Bytes per second to gigabits per second."""
    return Bps * 8.0 / 1e9


_PREFIX: Final[dict[str, float]] = {
    "": 1.0,
    "k": 1e3,
    "K": 1e3,
    "M": 1e6,
    "G": 1e9,
    "T": 1e12,
    "P": 1e15,
    "E": 1e18,
    "Ki": 1024.0,
    "Mi": 1024.0**2,
    "Gi": 1024.0**3,
    "Ti": 1024.0**4,
    "Pi": 1024.0**5,
}

# dimension -> (unit symbol -> factor to SI)
_DIMENSIONS: Final[dict[str, dict[str, float]]] = {
    "bytes": {"B": 1.0, "b": 0.125, "bit": 0.125, "byte": 1.0, "bytes": 1.0},
    "time": {
        "s": 1.0,
        "sec": 1.0,
        "ms": 1e-3,
        "us": 1e-6,
        "µs": 1e-6,
        "ns": 1e-9,
        "min": 60.0,
        "h": 3600.0,
        "hour": 3600.0,
        "hours": 3600.0,
        "d": 86400.0,
        "day": 86400.0,
        "days": 86400.0,
    },
    "bytes_per_s": {"B/s": 1.0, "b/s": 0.125, "bps": 0.125, "Bps": 1.0},
    "bits_per_s": {"b/s": 1.0, "bps": 1.0, "B/s": 8.0, "Bps": 8.0},
    "flops": {"FLOP/s": 1.0, "FLOPS": 1.0, "flops": 1.0},
    "flop": {"FLOP": 1.0, "flop": 1.0},
    "watts": {"W": 1.0},
    "hertz": {"Hz": 1.0},
}

_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_QUANTITY_RE = re.compile(rf"^\s*(?P<num>{_NUMBER})\s*(?P<unit>[A-Za-zµ/]*)\s*$")


def _split_unit(unit: str, table: dict[str, float]) -> float | None:
    """Factor for ``unit`` = optional SI/IEC prefix + a symbol of ``table``."""
    if unit in table:
        return table[unit]
    for prefix in sorted(_PREFIX, key=len, reverse=True):
        if prefix and unit.startswith(prefix) and unit[len(prefix) :] in table:
            return _PREFIX[prefix] * table[unit[len(prefix) :]]
    if "µ" in unit or unit.startswith("u"):
        return None
    return None


def parse_quantity(value: object, dimension: str) -> float:
    """Convert a number or a human string like ``'400Gb/s'`` to an SI float.

    ``dimension`` is one of ``bytes``, ``time``, ``bytes_per_s``, ``bits_per_s``, ``flops``,
    ``flop``, ``watts``, ``hertz``. A bare number is taken as already SI.

    Raises:
        ValueError: the string is not a number with a unit of that dimension; the message
            lists the accepted units.
    """
    if isinstance(value, bool):
        raise ValueError(f"expected a {dimension} quantity, got a boolean")
    if isinstance(value, int | float):
        return float(value)
    if not isinstance(value, str):
        raise ValueError(f"expected a {dimension} quantity, got {type(value).__name__}")
    match = _QUANTITY_RE.match(value)
    table = _DIMENSIONS.get(dimension)
    if table is None:
        raise ValueError(f"unknown dimension {dimension!r}")
    if match is None:
        raise ValueError(f"{value!r} is not a number with a unit ({_examples(dimension)})")
    number = float(match.group("num"))
    unit = match.group("unit")
    if unit == "":
        return number
    factor = _split_unit(unit, table)
    if factor is None:
        raise ValueError(f"{value!r}: unit {unit!r} is not a {dimension} unit ({_examples(dimension)})")
    return number * factor


def _examples(dimension: str) -> str:
    examples = {
        "bytes": "e.g. 80GiB, 64MiB, 1.5TB",
        "time": "e.g. 2.5us, 10ms, 3h",
        "bytes_per_s": "e.g. 50GB/s, 400Gb/s",
        "bits_per_s": "e.g. 400Gb/s, 100Gbps",
        "flops": "e.g. 989TFLOP/s",
        "flop": "e.g. 4.1GFLOP",
        "watts": "e.g. 700W, 10.2kW",
        "hertz": "e.g. 2.0GHz",
    }
    return examples.get(dimension, dimension)
