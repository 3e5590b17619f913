"""Emulated BFB / firmware images and the tiny HTTP image server that serves them.

A real BF-Bundle BFB is 1-1.5 GB [S3][S4]; moving that many bytes on loopback for every
emulated BMC would measure the loopback, not the fleet. A served image is therefore a small
text *descriptor* (``key: value`` lines) that names the bundle, its component versions, its
generation, its nominal ``size_bytes`` and a checksum over those fields. The BMC fetches the
descriptor over real HTTP (so 404s, wrong URLs and server outages are real) and then spends
``size_bytes / rate`` of virtual time transferring it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, fields, replace
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

MAGIC = "# fabrictwin emulated BFB v1"


@dataclass(frozen=True, slots=True)
class Image:
    """What an image would install: versions per component, generation, nominal size."""

    name: str
    generation: str
    size_bytes: int
    os: str = ""
    bsp: str = ""
    atf: str = ""
    uefi: str = ""
    nic: str = ""
    ofed: str = ""
    bmc: str = ""
    cec: str = ""
    kind: str = "bundle"
    """``bundle`` (BF-Bundle), ``fwbundle`` (firmware only), ``bmc`` or ``cec`` package."""
    checksum: str = ""

    def digest(self) -> str:
        """SHA-256 over every field but the checksum."""
        text = "|".join(str(getattr(self, f.name)) for f in fields(self) if f.name != "checksum")
        return hashlib.sha256(text.encode()).hexdigest()

    def sealed(self) -> Image:
        """A copy with a correct checksum."""
        return replace(self, checksum=self.digest())

    @property
    def intact(self) -> bool:
        """True when the checksum matches (a corrupt image fails the installer's check)."""
        return self.checksum == self.digest()

    def render(self) -> str:
        """The descriptor text served over HTTP."""
        lines = [MAGIC] + [f"{f.name}: {getattr(self, f.name)}" for f in fields(self)]
        return "\n".join(lines) + "\n"


def parse_image(text: str) -> Image | None:
    """Read a descriptor; None when the text is not one (a wrong file behind the URL)."""
    if not text.startswith(MAGIC):
        return None
    values: dict[str, str] = {}
    for line in text.splitlines()[1:]:
        key, _, value = line.partition(": ")
        values[key.strip()] = value.strip()
    try:
        return Image(
            **{f.name: values.get(f.name, "") for f in fields(Image) if f.name != "size_bytes"},
            size_bytes=int(values.get("size_bytes", "0")),
        )
    except (TypeError, ValueError):
        return None


def _bfb(os_name: str, generation: str, size_bytes: int, **components: str) -> Image:
    """A sealed BF-Bundle image whose file is ``<os_name>.bfb`` (how NVIDIA names its bundles)."""
    return Image(f"{os_name}.bfb", generation, size_bytes, os=os_name, **components).sealed()


# Version strings are the real formats of section 1.7 [S6][S8][S23][S32].
CURRENT_BFB = _bfb(
    "bf-bundle-2.9.1-40_24.11_ubuntu-22.04_prod",
    "BF3",
    1_255 * 1024**2,  # observed BF3 bundle: 1255 MB over HTTP (reference bluefield-operations 1.1 [S4])
    bsp="4.9.1.13440",
    atf="v2.2(release):4.9.1-9-g3c45a0e33",
    uefi="4.9.1-17-gd0fd8a2b5c",
    nic="32.43.1014",
    ofed="MLNX_OFED_LINUX-24.10-1.1.4",
)
NEXT_BFB = _bfb(
    "bf-bundle-2.9.2-31_25.02_ubuntu-22.04_prod",
    "BF3",
    1_255 * 1024**2,  # same bundle line as CURRENT_BFB [S4]
    bsp="4.9.2.13551",
    atf="v2.2(release):4.9.2-14-geeb9a6f94",
    uefi="4.9.2-25-ge0f86cebd6",
    nic="32.43.2566",
    ofed="MLNX_OFED_LINUX-24.10-2.1.8",
)
BF2_BFB = _bfb(
    "DOCA_2.5.0_BSP_4.5.0_Ubuntu_22.04-1.20231120.prod",
    "BF2",
    1_100 * 1024**2,  # assumption inside the documented 1-1.5 GB range of a BFB [S3][S4]
    bsp="4.5.0.12993",
    atf="v2.2(release):4.5.0-43-g7d9d8a9",
    uefi="4.5.0-46-gf57517d",
    nic="24.39.1002",
    ofed="MLNX_OFED_LINUX-23.10-1.1.8",
)
BUNDLE_WITH_BMC = replace(
    NEXT_BFB,
    name="bf-bundle-2.9.2-31_25.02_ubuntu-22.04_prod-bmc.bfb",
    bmc="BF-25.10-20",
    cec="00.02.0195.0000_n02",
).sealed()
"""NEXT_BFB with a bf.cfg setting BMC_PASSWORD appended: the installer also updates BMC/CEC (1.4) [S22]."""
CORRUPT_BFB = replace(
    NEXT_BFB, name="bf-bundle-2.9.2-31_25.02_ubuntu-22.04_prod-corrupt.bfb", checksum="0" * 64
)
# BMC image ~30-60 MB (reference bluefield-operations 7.4 item 3, marked inference there).
BMC_PACKAGE = Image("bf3-bmc-25.10-20_ipn.fwpkg", "BF3", 48 * 1024**2, bmc="BF-25.10-20", kind="bmc").sealed()
CEC_PACKAGE = Image(
    "cec1736-ecfw-00.02.0195.0000-n02-rel-prod.fwpkg",
    "BF3",
    1 * 1024**2,  # assumption: the ERoT/CEC firmware is a small microcontroller image (no source)
    cec="00.02.0195.0000_n02",
    kind="cec",
).sealed()

DEFAULT_IMAGES: dict[str, Image] = {
    img.name: img
    for img in (CURRENT_BFB, NEXT_BFB, BUNDLE_WITH_BMC, BF2_BFB, CORRUPT_BFB, BMC_PACKAGE, CEC_PACKAGE)
}
"""Images every emulated fleet serves under ``/images/``."""


def load_images(directory: Path) -> dict[str, Image]:
    """Every descriptor file in ``directory`` (others are skipped), by file name."""
    found: dict[str, Image] = {}
    for path in sorted(directory.iterdir()):
        if path.is_file():
            image = parse_image(path.read_text(errors="replace"))
            if image is not None:
                found[path.name] = image
    return found


def image_routes(images: dict[str, Image]) -> list[Route]:
    """Routes serving ``GET /images/`` (JSON list) and ``GET /images/{name}`` (descriptor)."""

    async def listing(request: Request) -> Response:
        return JSONResponse(sorted(images))

    async def one(request: Request) -> Response:
        image = images.get(request.path_params["name"])
        if image is None:
            return PlainTextResponse("404 Not Found\n", status_code=404)
        return PlainTextResponse(image.render(), media_type="application/octet-stream")

    return [Route("/images/", listing), Route("/images/{name}", one)]


def image_server_app(images: dict[str, Image]) -> Starlette:
    """A stand-alone image server (what ``fabrictwin emulator images`` runs)."""
    return Starlette(routes=image_routes(images))
