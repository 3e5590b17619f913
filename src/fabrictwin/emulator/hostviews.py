"""Host- and Arm-side command output rendered from device state (7.5).

Formats follow the captures quoted in sections 1.2, 2.2 and 2.6 of
``reference/bluefield-operations.md`` (``mlxconfig q`` [S61], ``mst status -v`` [S1],
``lspci`` [S30], RShim ``misc`` [S10][S14], ``dmesg`` mlx5 lines [S54][S70], ``devlink``
[S72], ``ovs-vsctl`` bridges [S74]). ``bfver`` follows a public BF3 capture (BSP 4.9.1). Where
no capture exists (the host-DPU-mode ``devlink`` error) the function's docstring says the text
is inferred.
"""

from __future__ import annotations

from collections.abc import Callable

from fabrictwin.emulator import nvconfig
from fabrictwin.emulator.device import Device
from fabrictwin.emulator.redfish.system import stamp
from fabrictwin.errors import NotFound

NV_ORDER = (
    "INTERNAL_CPU_MODEL",
    "INTERNAL_CPU_PAGE_SUPPLIER",
    "INTERNAL_CPU_ESWITCH_MANAGER",
    "INTERNAL_CPU_IB_VPORT0",
    "INTERNAL_CPU_OFFLOAD_ENGINE",
    "INTERNAL_CPU_RSHIM",
    "LINK_TYPE_P1",
    "LINK_TYPE_P2",
    "SRIOV_EN",
    "NUM_OF_VFS",
    "PF_BAR2_ENABLE",
)
ARM_DOWN = "ssh: connect to host 192.168.100.2 port 22: No route to host\n"


def _pf(dev: Device, fn: int) -> str:
    return f"{dev.ident.pci_bus}:00.{fn}"


def netdev(dev: Device, port: int) -> str:
    """Host netdev name of PF ``port`` (``ens7f0np0``; ``ibp226s0f0`` for InfiniBand ports)."""
    if dev.nv_current[f"LINK_TYPE_P{port + 1}"] == 1:
        return f"ibp{int(dev.ident.pci_bus, 16)}s0f{port}"
    return f"ens7f{port}np{port}"


def netdevs_present(dev: Device) -> bool:
    """Host PF netdevs exist: driver bound and probe succeeded (2.6 rows 3, 7; 1.9)."""
    return (
        dev.host_netdevs_bound
        and not dev.has("host_pf_unbound_after_push")
        and not dev.has("mlx5_probe_timeout")
        and not dev.has("nic_health_compromised")
    )


def mlxconfig_q(dev: Device) -> str:
    """``mlxconfig -d /dev/mst/<dev>_pciconf0 q`` with Default / Current / Next Boot and ``*``."""
    head = (
        f"\nDevice #1:\n----------\n\nDevice type:        {dev.ident.device_type}\n"
        f"Name:               {dev.ident.part_number}\nDescription:        {dev.ident.description}\n"
        f"Device:             /dev/mst/{dev.ident.mst_name}_pciconf0\n\n"
        f"{'Configurations:':<52}{'Default':<16}{'Current':<16}Next Boot\n"
    )
    rows = []
    for name in NV_ORDER:
        d, c, n = dev.nv_default[name], dev.nv_current[name], dev.nv_next[name]
        mark = "*" if n != d or n != c else " "
        vals = [nvconfig.render_value(name, v) for v in (d, c, n)]
        rows.append(f"{mark:<8}{name:<44}{vals[0]:<16}{vals[1]:<16}{vals[2]}".rstrip())
    tail = "The '*' shows parameters with next value different from default/current value.\n"
    return head + "\n".join(rows) + "\n" + tail


def mst_status(dev: Device) -> str:
    """``mst status -v``: an empty NET/RDMA column is the "no netdev" symptom [S1]."""
    up = netdevs_present(dev)
    gen = f"{dev.ident.device_type}(rev:1)"
    lines = [
        "MST modules:",
        "------------",
        "    MST PCI module is not loaded",
        "    MST PCI configuration module loaded",
        "PCI devices:",
        "------------",
        f"{'DEVICE_TYPE':<19}{'MST':<31}{'PCI':<10}{'RDMA':<8}{'NET':<20}NUMA",
    ]
    for fn in (1, 0):
        mst = f"/dev/mst/{dev.ident.mst_name}_pciconf0" + (f".{fn}" if fn else "")
        rdma = f"mlx5_{fn}" if up else ""
        net = f"net-{netdev(dev, fn)}" if up else ""
        lines.append(f"{gen:<19}{mst:<31}{_pf(dev, fn):<10}{rdma:<8}{net:<20}4")
    return "\n".join(lines) + "\n"


def lspci(dev: Device, kernel: bool = False) -> str:
    """``lspci -d 15b3:`` (``-k`` adds the driver lines) [S30]."""
    ctrl = "Infiniband controller" if dev.nv_current["LINK_TYPE_P1"] == 1 else "Ethernet controller"
    name = (
        f"Mellanox Technologies {dev.ident.lspci_name} integrated {dev.ident.connectx} "
        "network controller (rev 01)"
    )
    out = []
    for fn in (0, 1):
        out.append(f"{_pf(dev, fn)} {ctrl}: {name}")
        if kernel:
            out.append("\tSubsystem: Mellanox Technologies Device 0051")
            if dev.host_netdevs_bound and not dev.has("host_pf_unbound_after_push"):
                out.append("\tKernel driver in use: mlx5_core")
            out.append("\tKernel modules: mlx5_core")
    if dev.host_rshim_present:
        out.append(
            f"{_pf(dev, 2)} DMA controller: Mellanox Technologies {dev.ident.lspci_name} SoC Management "
            "Interface (rev 01)"
        )
        if kernel:
            out.append("\tSubsystem: Mellanox Technologies Device 0051")
    return "\n".join(out) + "\n"


def ip_br_link(dev: Device) -> str:
    """``ip -br link`` on the host (``tmfifo_net0`` only with host RShim)."""
    rows = [
        ("lo", "UNKNOWN", "00:00:00:00:00:00", "<LOOPBACK,UP,LOWER_UP>"),
        ("eno1", "UP", "3c:ec:ef:10:00:01", "<BROADCAST,MULTICAST,UP,LOWER_UP>"),
    ]
    if netdevs_present(dev):
        fault = dev.faults.get("link_down")
        for port in (0, 1):
            down = fault is not None and fault.port == port
            flags = "<NO-CARRIER,BROADCAST,MULTICAST,UP>" if down else "<BROADCAST,MULTICAST,UP,LOWER_UP>"
            rows.append((netdev(dev, port), "DOWN" if down else "UP", dev.ident.mac(port), flags))
    if dev.host_rshim_present and dev.rshim_owner != "bmc":
        rows.append(("tmfifo_net0", "UNKNOWN", "00:1a:ca:ff:ff:02", "<BROADCAST,MULTICAST,UP,LOWER_UP>"))
    return "".join(f"{n:<16} {s:<14} {m} {f}\n" for n, s, m, f in rows)


def devlink_eswitch(dev: Device) -> str:
    """``devlink dev eswitch show pci/0000:<pf0>``. NIC mode: host owns a legacy eswitch [S72].

    DPU mode: the host PF is not the eswitch manager; the kernel refuses the query, which
    devlink prints as below (inference: the reference lists this output as unverified).
    """
    if dev.mode == "NicMode":
        return f"pci/0000:{_pf(dev, 0)}: mode legacy inline-mode none encap-mode basic\n"
    return "kernel answers: Operation not supported\n"


def flint_q(dev: Device) -> str:
    """``flint -d <bdf> q``; ``FW Version(Running)`` appears while new firmware is staged [S49][S23]."""
    lines = ["Image type:            FS4", f"FW Version:            {dev.nic_flash}"]
    if dev.nic_flash != dev.fw["DPU_NIC"]:
        lines.append(f"FW Version(Running):   {dev.fw['DPU_NIC']}")
    mac = dev.ident.base_mac.replace(":", "")
    lines += [
        f"Product Version:       {dev.fw['DPU_NIC']}",
        "Rom Info:              type=UEFI Virtio net version=21.4.13 cpu=AMD64,AARCH64",
        "                       type=PXE version=3.7.500 cpu=AMD64",
        "Description:           UID                GuidsNumber",
        f"Base GUID:             {mac[:6]}0300{mac[6:]}        38",
        f"Base MAC:              {mac}            38",
        "Image VSD:             N/A",
        "Device VSD:            N/A",
        f"PSID:                  {dev.ident.psid}",
        "Security Attributes:   secure-fw",
    ]
    return "\n".join(lines) + "\n"


def dmesg(dev: Device) -> str:
    """``dmesg | grep mlx5``: probe, rename, and the failure lines of 2.6 row 3 [S54][S70]."""
    pf = f"mlx5_core 0000:{_pf(dev, 0)}"
    lines = [(4.81, f"{pf}: firmware version: {dev.fw['DPU_NIC']}")]
    if dev.has("mlx5_probe_timeout"):
        lines += [
            (4.82, f"{pf}: wait_fw_init:316:(pid 512): Waiting for FW initialization, timeout abort in 120s"),
            (
                124.82,
                f"{pf}: mlx5_function_setup:1125:(pid 512): Firmware over 120000 MS in pre-initializing "
                "state, aborting",
            ),
            (124.83, f"{pf}: probe_one:1894:(pid 512): mlx5_init_one failed with error code -110"),
        ]
    elif netdevs_present(dev) or dev.has("nic_health_compromised"):
        lines += [
            (5.12, f"{pf}: Rate limit: 127 rates are supported, range: 0Mbps to 195312Mbps"),
            (5.31, f"{pf} {netdev(dev, 0)}: renamed from eth0"),
        ]
    if dev.has("nic_health_compromised"):
        lines += [
            (3600.5, f"{pf}: poll_health:824:(pid 0): device's health compromised - reached miss count"),
            (
                3600.5,
                f"{pf}: print_health_info:431:(pid 0): Health issue observed, firmware internal error, "
                "severity(2) CRITICAL:",
            ),
        ]
    return "".join(f"[{t:12.6f}] {text}\n" for t, text in lines)


def rshim_misc(dev: Device, side: str = "host") -> str:
    """``cat /dev/rshim0/misc`` on the host or the BMC (format of 1.2) [S10][S14].

    Only the side that owns RShim has the device; the BMC reaches it over USB (``usb-1.0``) [S1].
    """
    owner = dev.rshim_owner == "bmc"
    if (side == "host" and (not dev.host_rshim_present or owner)) or (side == "bmc" and not owner):
        return "cat: /dev/rshim0/misc: No such file or directory\n"
    dev_name = f"pcie-0000:{_pf(dev, 2)}" if side == "host" else "usb-1.0"
    head = (
        "DISPLAY_LEVEL   2 (0:basic, 1:advanced, 2:log)\n"
        "BOOT_MODE       1 (0:rshim, 1:emmc, 2:emmc-boot-swap)\n"
        "BOOT_TIMEOUT    150 (seconds)\nDROP_MODE       0 (0:normal, 1:drop)\nSW_RESET        0 (1: reset)\n"
        f"DEV_NAME        {dev_name}\n"
        f"DEV_INFO        {dev.ident.device_type.replace('BlueField', 'BlueField-')}"
        "(Rev 1)\nOPN_STR         N/A\n---------------------------------------\n             Log Messages\n"
        "---------------------------------------\n"
    )
    return head + "".join(f" {line}\n" for line in dev.rshim_log)


def systemctl_rshim(dev: Device) -> str:
    """``systemctl status rshim`` on the host; a BMC owner shows "another backend" [S12]."""
    since = stamp(0.0).replace("T", " ")[:19]
    note = "another backend already attached" if dev.rshim_owner == "bmc" else "rshim0 attached"
    return (
        "● rshim.service - rshim driver for BlueField SoC\n"
        "     Loaded: loaded (/lib/systemd/system/rshim.service; enabled; vendor preset: enabled)\n"
        f"     Active: active (running) since {since} UTC\n       Docs: man:rshim(8)\n"
        "   Main PID: 1234 (rshim)\n     CGroup: /system.slice/rshim.service\n"
        "             └─1234 /usr/sbin/rshim\n\n"
        f"{since[:10]} host rshim[1234]: {note}\n"
    )


def _arm_up(dev: Device) -> bool:
    return dev.arm_state == "OsIsRunning" and dev.dpu_ready


def bfver(dev: Device) -> str:
    """``bfver`` on the Arm: the boot partition read, ATF/UEFI/BSP versions, then the OS release
    (layout of a BF3 capture with BSP 4.9.1, a public BlueField tutorial's ``sudo bfver``)."""
    if not _arm_up(dev):
        return ARM_DOWN
    return (
        "--/dev/mmcblk0boot1\n"
        f"BlueField ATF version: {dev.fw['DPU_ATF']}\nBlueField UEFI version: {dev.fw['DPU_UEFI']}\n"
        f"BlueField BSP version: {dev.fw['DPU_BSP']}\n\nOS Release Version: {dev.fw['DPU_OS']}\n"
    )


def mlnx_release(dev: Device) -> str:
    """``cat /etc/mlnx-release`` on the Arm."""
    return f"{dev.fw['DPU_OS']}\n" if _arm_up(dev) else ARM_DOWN


def mokutil(dev: Device) -> str:
    """``mokutil --sb-state`` on the Arm."""
    if not _arm_up(dev):
        return ARM_DOWN
    return "SecureBoot enabled\n" if dev.secure_boot else "SecureBoot disabled\n"


def ovs_vsctl(dev: Device) -> str:
    """``ovs-vsctl show`` on the Arm: default bridges ovsbr1/ovsbr2 (3.1) [S74]."""
    if not _arm_up(dev):
        return ARM_DOWN
    out = [f"{dev.ident.uuid}"]
    for br, p, pf, sf in (
        ("ovsbr1", "p0", "pf0hpf", "en3f0pf0sf0"),
        ("ovsbr2", "p1", "pf1hpf", "en3f1pf1sf0"),
    ):
        out.append(
            f"    Bridge {br}\n        Port {br}\n            Interface {br}\n                type: internal"
        )
        for iface in (p, pf, sf):
            out.append(f"        Port {iface}\n            Interface {iface}")
    out.append('    ovs_version: "3.0.0-0056-25.01-based-3.3.4"')
    return "\n".join(out) + "\n"


def ofed_info(dev: Device) -> str:
    """``ofed_info -s`` on the host; ``version_mismatch`` makes it disagree with the Arm."""
    fault = dev.faults.get("version_mismatch")
    if fault is not None:
        return f"{fault.host_doca or 'MLNX_OFED_LINUX-23.10-1.1.9'}:\n"
    return f"{dev.fw['DPU_OFED']}:\n"


VIEWS: dict[str, Callable[[Device], str]] = {
    "mlxconfig-q": mlxconfig_q,
    "mst-status-v": mst_status,
    "lspci": lspci,
    "lspci-k": lambda d: lspci(d, kernel=True),
    "ip-br-link": ip_br_link,
    "devlink-eswitch-show": devlink_eswitch,
    "flint-q": flint_q,
    "dmesg": dmesg,
    "rshim-misc": rshim_misc,
    "bmc-rshim-misc": lambda d: rshim_misc(d, side="bmc"),
    "systemctl-status-rshim": systemctl_rshim,
    "bfver": bfver,
    "mlnx-release": mlnx_release,
    "mokutil-sb-state": mokutil,
    "ovs-vsctl-show": ovs_vsctl,
    "ofed-info-s": ofed_info,
}
"""Command name (as in ``/admin/host/{cmd}``) -> renderer."""


def render(dev: Device, cmd: str) -> str:
    """Output of ``cmd`` on ``dev``'s host (or Arm).

    Raises:
        NotFound: for an unknown command name.
    """
    fn = VIEWS.get(cmd)
    if fn is None:
        raise NotFound(f"unknown host command {cmd!r}; known: {', '.join(sorted(VIEWS))}")
    return fn(dev)
