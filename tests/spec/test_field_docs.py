"""Every field of every spec says its unit and meaning (docstrings become descriptions)."""

from __future__ import annotations

import importlib
import inspect

import pytest

from fabrictwin.spec.base import Spec

MODULES = ["base", "hardware", "cluster", "workload"]


def _specs(module_name: str) -> list[type[Spec]]:
    module = importlib.import_module(f"fabrictwin.spec.{module_name}")
    return [
        cls
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if issubclass(cls, Spec) and cls.__module__ == module.__name__
    ]


@pytest.mark.parametrize("module_name", MODULES)
def test_every_field_has_a_description(module_name: str) -> None:
    specs = _specs(module_name)
    assert specs
    for cls in specs:
        missing = [name for name, info in cls.model_fields.items() if not info.description]
        assert not missing, f"{cls.__name__} fields without a docstring: {missing}"


def test_descriptions_reach_the_json_schema() -> None:
    from fabrictwin.spec.hardware import GpuSpec

    schema = GpuSpec.model_json_schema()
    assert schema["properties"]["hbm_Bps"]["description"] == "HBM bandwidth in bytes/s."
