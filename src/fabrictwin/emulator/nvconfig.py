"""mlxconfig NV parameters of a BlueField: names, value codes and the mode they encode.

Parameter names, value names and codes, and the BF2/BF3 mode rules are from section 2.2 of
``reference/bluefield-operations.md`` [S58][S59][S61]: BF3's mode is
``INTERNAL_CPU_OFFLOAD_ENGINE`` alone (``DISABLED(1)`` = NIC mode); BF2's is the five-parameter
tuple MODEL, PAGE_SUPPLIER, ESWITCH_MANAGER, IB_VPORT0, OFFLOAD_ENGINE.
"""

from __future__ import annotations

VALUE_NAMES: dict[str, dict[int, str]] = {
    "INTERNAL_CPU_MODEL": {0: "SEPARATED_HOST", 1: "EMBEDDED_CPU"},
    "INTERNAL_CPU_PAGE_SUPPLIER": {0: "ECPF", 1: "EXT_HOST_PF"},
    "INTERNAL_CPU_ESWITCH_MANAGER": {0: "ECPF", 1: "EXT_HOST_PF"},
    "INTERNAL_CPU_IB_VPORT0": {0: "ECPF", 1: "EXT_HOST_PF"},
    "INTERNAL_CPU_OFFLOAD_ENGINE": {0: "ENABLED", 1: "DISABLED"},
    "INTERNAL_CPU_RSHIM": {0: "ENABLED", 1: "DISABLED"},
    "LINK_TYPE_P1": {1: "IB", 2: "ETH"},
    "LINK_TYPE_P2": {1: "IB", 2: "ETH"},
    "SRIOV_EN": {0: "False", 1: "True"},
    "NUM_OF_VFS": {},
    "PF_BAR2_ENABLE": {0: "False", 1: "True"},
}
"""Parameter -> code -> name; an empty map prints the bare number (counts)."""

DEFAULTS: dict[str, int] = {
    "INTERNAL_CPU_MODEL": 1,
    "INTERNAL_CPU_PAGE_SUPPLIER": 0,
    "INTERNAL_CPU_ESWITCH_MANAGER": 0,
    "INTERNAL_CPU_IB_VPORT0": 0,
    "INTERNAL_CPU_OFFLOAD_ENGINE": 0,
    "INTERNAL_CPU_RSHIM": 0,
    "LINK_TYPE_P1": 2,
    "LINK_TYPE_P2": 2,
    "SRIOV_EN": 1,
    "NUM_OF_VFS": 16,
    "PF_BAR2_ENABLE": 0,
}
"""Factory defaults of a DPU SKU: DPU mode, Ethernet ports, host RShim on."""

BF2_TUPLE = (
    "INTERNAL_CPU_MODEL",
    "INTERNAL_CPU_PAGE_SUPPLIER",
    "INTERNAL_CPU_ESWITCH_MANAGER",
    "INTERNAL_CPU_IB_VPORT0",
    "INTERNAL_CPU_OFFLOAD_ENGINE",
)
BF2_DPU = (1, 0, 0, 0, 0)
BF2_NIC = (1, 1, 1, 1, 1)


def render_value(name: str, code: int) -> str:
    """``ENABLED(0)`` style, or the bare number for counts."""
    names = VALUE_NAMES.get(name, {})
    return f"{names[code]}({code})" if code in names else str(code)


def mode_of(nv: dict[str, int], generation: str) -> str:
    """``DpuMode``, ``NicMode``, or ``""`` for an inconsistent BF2 tuple."""
    if generation == "BF3":
        return "NicMode" if nv["INTERNAL_CPU_OFFLOAD_ENGINE"] == 1 else "DpuMode"
    values = tuple(nv[name] for name in BF2_TUPLE)
    if values == BF2_DPU:
        return "DpuMode"
    if values == BF2_NIC:
        return "NicMode"
    return ""


def set_mode(nv: dict[str, int], mode: str, generation: str) -> None:
    """Write the parameters that select ``mode`` into ``nv`` in place.

    Raises:
        ValueError: if ``mode`` is not DpuMode or NicMode.
    """
    if mode not in ("DpuMode", "NicMode"):
        raise ValueError(f"unknown mode {mode!r}")
    if generation == "BF3":
        nv["INTERNAL_CPU_OFFLOAD_ENGINE"] = 1 if mode == "NicMode" else 0
        return
    for name, value in zip(BF2_TUPLE, BF2_NIC if mode == "NicMode" else BF2_DPU, strict=True):
        nv[name] = value
