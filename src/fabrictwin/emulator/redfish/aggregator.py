"""The fleet's entry point at ``http://127.0.0.1:PORT/redfish/v1``: a Redfish service root with an
``AggregationService`` whose ``AggregationSources`` name every BMC by URL (DSP0268
AggregationService / AggregationSource)."""

from __future__ import annotations

from typing import Any

from fabrictwin.emulator.fleet import Fleet, bmc_address
from fabrictwin.emulator.redfish.odata import V1, collection, link, resource
from fabrictwin.emulator.rferror import not_found

AGG = f"{V1}/AggregationService"
SOURCES = f"{AGG}/AggregationSources"


def aggregator(fleet: Fleet, path: str) -> dict[str, Any]:
    """Render an aggregator resource.

    Raises:
        RedfishError: 404 for unknown paths.
    """
    if path in ("/redfish", "/redfish/v1"):
        if path == "/redfish":
            return {"v1": "/redfish/v1/"}
        return resource(
            V1,
            "#ServiceRoot.v1_15_0.ServiceRoot",
            Id="RootService",
            Name="fabrictwin fleet aggregator",
            RedfishVersion="1.17.0",
            UUID="00000000-0000-4000-8000-000000000000",
            Vendor="fabrictwin",
            AggregationService=link(AGG),
            Oem={"FabricTwin": {"BmcCount": len(fleet.devices), "Admin": "/admin/fleet"}},
        )
    if path == AGG:
        return resource(
            AGG,
            "#AggregationService.v1_0_3.AggregationService",
            Id="AggregationService",
            Name="Aggregation Service",
            ServiceEnabled=True,
            AggregationSources=link(SOURCES),
        )
    if path == SOURCES:
        return collection(
            SOURCES,
            "AggregationSourceCollection",
            "Aggregation Sources",
            [f"{SOURCES}/{i}" for i in range(len(fleet.devices))],
        )
    head, _, tail = path.rpartition("/")
    if head == SOURCES and tail.isdigit() and int(tail) < len(fleet.devices):
        dev = fleet.devices[int(tail)]
        return resource(
            f"{SOURCES}/{tail}",
            "#AggregationSource.v1_4_0.AggregationSource",
            Id=tail,
            Name=dev.ident.serial,
            HostName=fleet.url(bmc_address(int(tail))),
            UserName=fleet.settings.credentials.username,
            Links={"ResourcesAccessed": [link(f"{V1}/Systems/Bluefield")]},
            Oem={"FabricTwin": {"Serial": dev.ident.serial, "Server": dev.ident.server}},
        )
    raise not_found(path)
