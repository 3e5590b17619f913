"""Identity of an emulated BlueField card, drawn deterministically from (seed, index).

Formats follow section 7.1 of ``reference/bluefield-operations.md``: serial ``MT2328XZ185R``
(Redfish pads it with trailing spaces), PSID ``MT_0000000884``, part ``900-9D3B6-00CV-AA0``,
PCI functions ``e2:00.0``/``e2:00.1`` (NIC PFs) and ``e2:00.2`` (RShim) [S6][S30].
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import numpy as np

# Per generation: (part number, PSID, device type, mst device, lspci name, Redfish model).
# Values from 2.2/2.6 and 7.1 of the reference [S1][S6][S30][S61].
_GEN = {
    "BF3": (
        "900-9D3B6-00CV-AA0",
        "MT_0000000884",
        "BlueField3",
        "mt41692",
        "MT43244 BlueField-3",
        "Bluefield 3 SmartNIC Main Card",
        "NVIDIA BlueField-3 B3220 P-Series FHHL DPU; 200GbE (default mode) / NDR200 IB; "
        "Dual-port QSFP112; PCIe Gen5.0 x16 with x16 PCIe extension option; 16 Arm cores; "
        "32GB on-board DDR; integrated BMC; Crypto Enabled",
        "ConnectX-7",
    ),
    "BF2": (
        "MBF2H516A-CEEO_Ax",
        "MT_0000000765",
        "BlueField2",
        "mt41686",
        "MT42822 BlueField-2",
        "Bluefield 2 SmartNIC Main Card",
        "BlueField-2 P-Series DPU 100GbE Dual-Port QSFP56; integrated BMC; PCIe Gen4 x16; "
        "Secure Boot Enabled; Crypto Enabled; 16GB on-board DDR; 1GbE OOB management; FHHL",
        "ConnectX-6 Dx",
    ),
}


@dataclass(frozen=True, slots=True)
class Identity:
    """Who a card is: generation, part, serial, MACs, PCI address, UUID."""

    index: int
    generation: str
    part_number: str
    psid: str
    device_type: str
    mst_name: str
    lspci_name: str
    model: str
    description: str
    connectx: str
    serial: str
    base_mac: str
    uuid: str
    pci_bus: str

    def mac(self, offset: int) -> str:
        """The base MAC plus ``offset`` (PF0 = 0, PF1 = 1, OOB = 2...)."""
        value = int(self.base_mac.replace(":", ""), 16) + offset
        raw = f"{value:012x}"
        return ":".join(raw[i : i + 2] for i in range(0, 12, 2))

    @property
    def server(self) -> str:
        """Name of the server (Slurm/Kubernetes node) that hosts this card."""
        return f"node{self.index:04d}"


def make_identity(index: int, seed: int, generation: str) -> Identity:
    """Draw the identity of card ``index`` of a fleet seeded with ``seed``.

    Raises:
        KeyError: if ``generation`` is not ``BF2`` or ``BF3``.
    """
    part, psid, dtype, mst, lspci, model, desc, cx = _GEN[generation]
    rng = np.random.default_rng([seed, index])
    letters = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"
    tail = "".join(letters[int(i)] for i in rng.integers(0, len(letters), size=2))
    serial = f"MT{2300 + int(rng.integers(0, 52)):04d}X{tail}{index:04d}"[:14]
    # NVIDIA's OUI b8:3f:d2 appears on BlueField cards; low 24 bits vary per card, step 4 so
    # the PF0/PF1/OOB MACs of one card never collide with the next card's.
    mac_low = (index * 4 + int(rng.integers(0, 1 << 10)) * 65536) & 0xFFFFFF
    base_mac = "b8:3f:d2:" + ":".join(f"{(mac_low >> s) & 0xFF:02x}" for s in (16, 8, 0))
    ident_uuid = str(uuid.UUID(bytes=rng.bytes(16), version=4))
    bus = ["e2", "03", "65", "a1", "c1"][index % 5]
    return Identity(
        index,
        generation,
        part,
        psid,
        dtype,
        mst,
        lspci,
        model,
        desc,
        cx,
        serial,
        base_mac,
        ident_uuid,
        bus,
    )
