"""Checks before a rollout changes anything: every BMC answers with the given credentials, the
image exists and fits the hardware, and each device's current version is known.

A rollout that fails here has drained nothing and pushed nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from fabrictwin.errors import DeviceError, SpecError
from fabrictwin.fleet.redfish import BlueField
from fabrictwin.spec.fleet import DeviceRef, ImageSpec, RolloutSpec


class PreflightError(DeviceError):
    """One or more devices cannot take part; the message names each device and its cause."""


def parse_manifest(head: str) -> dict[str, str]:
    """``key: value`` header lines of an image manifest (empty for a binary BFB)."""
    out: dict[str, str] = {}
    for line in head.splitlines()[:40]:
        key, sep, value = line.partition(": ")
        if sep and key.strip().isidentifier():
            out[key.strip()] = value.strip()
    return out


async def check_image(bmc: BlueField, image: ImageSpec, role: str) -> None:
    """The image URI answers, and its manifest (when it has one) matches version and generation.

    Raises :class:`SpecError` naming the image and the cause.
    """
    status, head = await bmc.s.http.probe(image.uri)
    if status == 404:
        raise SpecError(f"{role} image {image.uri} not found (404): unknown version {image.version!r}?")
    if status >= 400:
        raise SpecError(f"{role} image {image.uri} cannot be fetched (HTTP {status})")
    manifest = parse_manifest(head)
    if manifest.get("os") and manifest["os"] != image.version:
        raise SpecError(f"{role} image {image.uri} installs {manifest['os']!r}, not {image.version!r}")
    if manifest.get("generation") and manifest["generation"] != image.generation:
        raise SpecError(
            f"{role} image {image.uri} is built for {manifest['generation']}, spec says {image.generation}"
        )


async def _device(bmc: BlueField, ref: DeviceRef, spec: RolloutSpec) -> tuple[str, str]:
    system = await bmc.system()  # reachability and credentials
    generation = await bmc.generation() or ref.generation
    for role, image in (("target", spec.target), ("previous", spec.previous)):
        if image is not None and image.generation != generation:
            raise DeviceError(
                f"{role} image {image.version} is for {image.generation} but the device is a {generation}"
                " (a wrong-generation BFB fails with 'Invalid FW Package')",
                device=ref.name,
            )
    if system.power_state and system.power_state != "On":
        raise DeviceError(f"Arm power is {system.power_state}", device=ref.name)
    return await bmc.version("DPU_OS"), await bmc.mode()


async def preflight(
    spec: RolloutSpec, refs: Sequence[DeviceRef], bmcs: Mapping[str, BlueField]
) -> dict[str, tuple[str, str]]:
    """Device -> (current ``DPU_OS`` version, mode), or raise naming every failing device.

    Raises :class:`SpecError` for a missing or mismatched image and :class:`PreflightError`
    when devices are unreachable, refuse the credentials or have the wrong generation.
    """
    if not refs:
        raise SpecError("the fleet has no devices")
    first = bmcs[refs[0].name]
    await check_image(first, spec.target, "target")
    if spec.previous is not None:
        await check_image(first, spec.previous, "previous")
    results = await asyncio.gather(*(_device(bmcs[r.name], r, spec) for r in refs), return_exceptions=True)
    errors: list[str] = []
    versions: dict[str, tuple[str, str]] = {}
    for ref, result in zip(refs, results, strict=True):
        if isinstance(result, DeviceError):
            errors.append(str(result) if ref.name in str(result) else f"{ref.name}: {result}")
        elif isinstance(result, BaseException):
            raise result
        else:
            versions[ref.name] = result
    if errors:
        more = f" (and {len(errors) - 10} more)" if len(errors) > 10 else ""
        raise PreflightError(
            f"{len(errors)} of {len(refs)} devices failed preflight: " + "; ".join(errors[:10]) + more
        )
    return versions
