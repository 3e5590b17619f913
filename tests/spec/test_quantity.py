"""Human units in YAML become SI floats exactly once, in the field types of spec.quantity."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from fabrictwin.spec.base import Spec
from fabrictwin.spec.quantity import BitsPerS, Bytes, BytesPerS, Flop, FlopsPerS, Hertz, Seconds, Watts


class Q(Spec):
    """One field of every dimension."""

    b: Bytes = 0.0
    s: Seconds = 0.0
    Bps: BytesPerS = 0.0
    bps: BitsPerS = 0.0
    flops: FlopsPerS = 0.0
    flop: Flop = 0.0
    w: Watts = 0.0
    hz: Hertz = 0.0


@pytest.mark.parametrize(
    ("field", "text", "si"),
    [
        ("b", "80GiB", 80 * 2**30),
        ("b", "80GB", 80e9),
        ("b", "512MiB", 512 * 2**20),
        ("b", "1.5TB", 1.5e12),
        ("b", "8Gb", 1e9),  # a lower-case b is a bit
        ("s", "2.5us", 2.5e-6),
        ("s", "10ms", 1e-2),
        ("s", "3h", 10800.0),
        ("s", "150ns", 150e-9),
        ("Bps", "3.35TB/s", 3.35e12),
        ("Bps", "400Gb/s", 50e9),  # a line rate given to a bytes/s field is divided by 8
        ("bps", "400Gb/s", 400e9),
        ("bps", "100Gbps", 100e9),
        ("bps", "50GB/s", 400e9),
        ("flops", "989.5TFLOP/s", 989.5e12),
        ("flops", "2.25PFLOP/s", 2.25e15),
        ("flop", "4.1GFLOP", 4.1e9),
        ("w", "10.2kW", 10200.0),
        ("w", "700W", 700.0),
        ("hz", "2.25GHz", 2.25e9),
    ],
)
def test_a_human_quantity_converts_to_si(field: str, text: str, si: float) -> None:
    assert getattr(Q.model_validate({field: text}), field) == pytest.approx(si, rel=1e-12)


def test_a_bare_number_is_taken_as_already_si() -> None:
    assert Q.model_validate({"b": 1024, "s": 0.5}).b == 1024.0
    assert Q.model_validate({"s": 0.5}).s == 0.5


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("b", "80 parsecs", "'80 parsecs': unit 'parsecs' is not a bytes unit"),
        ("b", "lots", "'lots' is not a number with a unit"),
        ("s", "5GB", "unit 'GB' is not a time unit"),
        ("w", True, "expected a watts quantity, got a boolean"),
        ("hz", [1], "expected a hertz quantity, got list"),
    ],
)
def test_a_bad_quantity_is_a_quantity_error_naming_the_value(field: str, value: object, message: str) -> None:
    with pytest.raises(ValidationError) as info:
        Q.model_validate({field: value})
    error = info.value.errors()[0]
    assert error["type"] == "quantity"
    assert message in error["msg"]


def test_specs_are_frozen() -> None:
    q = Q(b=1.0)
    with pytest.raises(ValidationError):
        q.b = 2.0  # type: ignore[misc]
