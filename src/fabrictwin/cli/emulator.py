"""``fabrictwin emulator``: serve emulated BlueField DPUs + BMCs on loopback, or just images."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.console import Console

from fabrictwin.errors import SpecError
from fabrictwin.spec.faults import FAULT_KINDS, EmulatorSettings, FaultPlan
from fabrictwin.spec.load import load_model


def _settings(**fields: object) -> EmulatorSettings:
    try:
        return EmulatorSettings.model_validate(fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise SpecError(f"{first['msg']}", path=".".join(str(p) for p in first["loc"])) from None


def register(app: typer.Typer) -> None:
    emulator = typer.Typer(
        help="BlueField DPU + BMC emulator over real HTTP (see docs/emulator.md).", no_args_is_help=True
    )
    app.add_typer(emulator, name="emulator")

    @emulator.command()
    def serve(
        dpus: Annotated[int, typer.Option(help="Emulated DPUs (one BMC each, 127.0.X.Y).")] = 1,
        seed: Annotated[int, typer.Option(help="Seed for identities and fault priors.")] = 0,
        time_scale: Annotated[
            float, typer.Option(help="Virtual seconds per wall second (0: admin clock only).")
        ] = 1.0,
        port: Annotated[int, typer.Option(help="TCP port shared by every address.")] = 18000,
        generation: Annotated[str, typer.Option(help="BF3 or BF2.")] = "BF3",
        profile: Annotated[str, typer.Option(help="BMC profile A (23.10), B (24.x) or C (25.x).")] = "C",
        mode: Annotated[str, typer.Option(help="DpuMode or NicMode at start.")] = "DpuMode",
        faults: Annotated[Path | None, typer.Option(help="YAML fault plan (devices, priors, seed).")] = None,
        platform_bmcs: Annotated[
            bool, typer.Option(help="Serve a platform BMC per server on 127.1.X.Y.")
        ] = True,
        bmc_starting: Annotated[
            bool, typer.Option(help="Start every BMC in its 503 Starting window.")
        ] = False,
        tls: Annotated[
            bool, typer.Option(help="HTTPS with a self-signed certificate, as real BMCs.")
        ] = False,
    ) -> None:
        """Serve a fleet until Ctrl-C: aggregator on 127.0.0.1, BMC i on 127.0.(1+i//254).(1+i%254)."""
        from fabrictwin.emulator import run_fleet

        plan = load_model(faults, FaultPlan) if faults is not None else FaultPlan()
        settings = _settings(
            dpus=dpus,
            seed=seed,
            time_scale=time_scale,
            port=port,
            generation=generation,
            profile=profile,
            mode=mode,
            faults=plan,
            platform_bmcs=platform_bmcs,
            bmc_starting=bmc_starting,
            tls=tls,
        )
        console = Console()
        console.print(
            f"[bold]fabrictwin emulator[/]: {dpus} BlueField BMCs, time x{time_scale:g}, seed {seed}"
        )
        scheme = "https" if tls else "http"
        console.print(f"  fleet root  {scheme}://127.0.0.1:{port}/redfish/v1   (admin: /admin/fleet)")
        console.print(f"  BMC 0       {scheme}://127.0.1.1:{port}/redfish/v1   user root / 0penBmc")
        run_fleet(settings)

    @emulator.command()
    def images(
        directory: Annotated[Path, typer.Argument(help="Folder of emulated image descriptors.")],
        host: Annotated[str, typer.Option(help="Loopback address to listen on.")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="TCP port.")] = 18080,
    ) -> None:
        """Serve a folder of image descriptors at http://HOST:PORT/images/NAME."""
        import uvicorn

        from fabrictwin.emulator.images import image_server_app, load_images

        found = load_images(directory)
        Console().print(f"serving {len(found)} images from {directory} at http://{host}:{port}/images/")
        uvicorn.run(image_server_app(found), host=host, port=port, log_level="warning")

    @emulator.command("faults")
    def list_faults() -> None:
        """List the injectable fault kinds (section 7.6 families)."""
        for kind in FAULT_KINDS:
            typer.echo(kind)
