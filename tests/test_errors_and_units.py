import pytest

from fabrictwin.errors import Infeasible, SpecError
from fabrictwin.units import GiB, parse_quantity


def test_spec_error_names_file_line_path_and_rule():
    err = SpecError("'ib-ndrr' is not a known link", path="fabric.compute.link", file="c.yaml", line=12)
    assert str(err) == "c.yaml:12 fabric.compute.link: 'ib-ndrr' is not a known link"


def test_infeasible_carries_the_nearest_choice():
    assert str(Infeasible("too few ports", nearest="radix 64")) == "too few ports; nearest feasible: radix 64"


@pytest.mark.parametrize(
    ("text", "dimension", "expected"),
    [
        ("400Gb/s", "bits_per_s", 400e9),
        ("400Gb/s", "bytes_per_s", 50e9),
        ("80GiB", "bytes", 80 * GiB),
        ("2.5us", "time", 2.5e-6),
        ("10ms", "time", 0.01),
        ("3h", "time", 10800.0),
        (7, "bytes", 7.0),
    ],
)
def test_human_quantities_convert_to_si(text, dimension, expected):
    assert parse_quantity(text, dimension) == pytest.approx(expected)


def test_a_unit_of_the_wrong_dimension_is_refused_with_examples():
    with pytest.raises(ValueError, match="not a time unit"):
        parse_quantity("80GiB", "time")
