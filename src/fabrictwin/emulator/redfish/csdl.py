"""CSDL schema files the emulator serves under ``/redfish/v1/schema`` (filled in below)."""

from __future__ import annotations


def schema_file(name: str) -> str | None:
    """The CSDL text of ``name`` (e.g. ``Task_v1.xml``), or None if not served."""
    return None
