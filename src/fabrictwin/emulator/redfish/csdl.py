"""CSDL schema files for the Redfish types the emulated BMC returns, served at ``/redfish/v1/schema``.

The DMTF schema bundle (DSP8010) cannot be fetched here (no network), so the emulator
describes the subset of each DMTF type it uses: property names, EDM types, enumerations,
navigation targets, actions and required properties, written from the DMTF Redfish Schema
Supplement / DSP8010 definitions of the versions named below (e.g. ComputerSystem v1_17_0,
Task v1_4_3). This lets the DMTF ``redfish-service-validator`` check every payload against
declared types (unknown properties, wrong types, enum values, links, action targets).
OEM extensions (``Oem.Nvidia``) are vendor schemas and are not described.

Type codes in the tables: ``s`` string, ``i`` integer, ``b`` boolean, ``d`` date-time,
``g`` GUID, ``n`` decimal; ``[x]`` a collection; ``>T`` a navigation link to ``T.T``;
anything with a dot is a named complex or enum type.
"""

from __future__ import annotations

from functools import cache

from fabrictwin.emulator.redfish.csdl_types import COLLECTIONS, EDM, HEALTH, PROTOCOLS, STATES, TYPES, Props

HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">\n'
    "  <edmx:DataServices>\n"
)
TAIL = "  </edmx:DataServices>\n</edmx:Edmx>\n"
SCHEMA = '    <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="{}">\n{}    </Schema>\n'


def _type(code: str) -> tuple[str, bool]:
    """(CSDL type, is navigation) of a type code."""
    if code.startswith("["):
        inner, nav = _type(code[1:-1])
        return f"Collection({inner})", nav
    if code.startswith(">"):
        target = code[1:]
        return (target if "." in target else f"{target}.{target}"), True
    return EDM.get(code, code), False


def _props(props: Props, required: tuple[str, ...] = ()) -> str:
    out = []
    for name, code in props.items():
        csdl, nav = _type(code)
        tag = "NavigationProperty" if nav else "Property"
        req = '<Annotation Term="Redfish.Required"/>' if name in required else ""
        out.append(f'        <{tag} Name="{name}" Type="{csdl}">{req}</{tag}>\n')
    return "".join(out)


def _entity(
    name: str, base: str, props: Props, abstract: bool = False, required: tuple[str, ...] = ()
) -> str:
    flag = ' Abstract="true"' if abstract else ""
    body = _props(props, required)
    return f'      <EntityType Name="{name}" BaseType="{base}"{flag}>\n{body}      </EntityType>\n'


# Bios attribute names follow the DMTF Bios schema's DynamicPropertyPatterns (Bios v1_0_0 Attributes).
DYNAMIC = (
    '        <Annotation Term="Redfish.DynamicPropertyPatterns"><Collection><Record>'
    '<PropertyValue Property="Pattern" String="^[A-Za-z][A-Za-z0-9_]+$"/>'
    '<PropertyValue Property="Type" String="Edm.Primitive"/></Record></Collection></Annotation>\n'
)


def _complex(name: str, props: Props) -> str:
    extra = DYNAMIC if name == "Attributes" else ""
    return f'      <ComplexType Name="{name}">\n{_props(props)}{extra}      </ComplexType>\n'


def _enum(name: str, members: list[str]) -> str:
    body = "".join(f'        <Member Name="{m}"/>\n' for m in members)
    return f'      <EnumType Name="{name}">\n{body}      </EnumType>\n'


def _resource_file() -> str:
    unversioned = (
        '      <EntityType Name="Item" Abstract="true"/>\n'
        + _enum("State", STATES)
        + _enum("Health", HEALTH)
        + _enum("PowerState", ["On", "Off", "PoweringOn", "PoweringOff", "Paused"])
        + _complex(
            "Status",
            {"State": "Resource.State", "Health": "Resource.Health", "HealthRollup": "Resource.Health"},
        )
        + '      <ComplexType Name="Oem"/>\n      <ComplexType Name="OemObject"/>\n'
    )
    base = {"Id": "s", "Name": "s", "Description": "s", "Oem": "Resource.Oem"}
    v1 = _entity("Resource", "Resource.Item", base, abstract=True, required=("Id", "Name")) + _entity(
        "ResourceCollection",
        "Resource.Item",
        {"Name": "s", "Description": "s", "Oem": "Resource.Oem"},
        abstract=True,
        required=("Name",),
    )
    return HEAD + SCHEMA.format("Resource", unversioned) + SCHEMA.format("Resource.v1_0_0", v1) + TAIL


def _type_file(ns: str) -> str:
    version, props, complexes, enums, actions = TYPES[ns]
    unversioned = _entity(ns, "Resource.v1_0_0.Resource", {}, abstract=True)
    unversioned += "".join(_enum(n, m) for n, m in enums.items())
    unversioned += "".join(f'      <Action Name="{a}" IsBound="true"/>\n' for a in actions)
    versioned = _entity(ns, f"{ns}.{ns}", props) + "".join(_complex(n, p) for n, p in complexes.items())
    return HEAD + SCHEMA.format(ns, unversioned) + SCHEMA.format(f"{ns}.{version}", versioned) + TAIL


def _collection_file(ns: str) -> str:
    member = COLLECTIONS[ns]
    body = _entity(ns, "Resource.v1_0_0.ResourceCollection", {"Members": f"[>{member}]"})
    return HEAD + SCHEMA.format(ns, body) + TAIL


def _message_file() -> str:
    props = {
        "MessageId": "s",
        "Message": "s",
        "MessageArgs": "[s]",
        "MessageSeverity": "Resource.Health",
        "Resolution": "s",
        "Severity": "s",
    }
    return (
        HEAD
        + SCHEMA.format("Message", "")
        + SCHEMA.format("Message.v1_1_1", _complex("Message", props))
        + TAIL
    )


def _protocol_file() -> str:
    return HEAD + SCHEMA.format("Protocol", _enum("Protocol", PROTOCOLS)) + TAIL


@cache
def schema_file(name: str) -> str | None:
    """The CSDL text of ``name`` (``Task_v1.xml``), or None if the emulator does not serve it."""
    ns = name.removesuffix("_v1.xml")
    if ns == "Resource":
        return _resource_file()
    if ns == "Message":
        return _message_file()
    if ns == "Protocol":
        return _protocol_file()
    if ns in TYPES:
        return _type_file(ns)
    if ns in COLLECTIONS:
        return _collection_file(ns)
    return None


def all_schema_names() -> list[str]:
    """Every file name served (what ``$metadata`` references)."""
    names = ["Resource", "Message", "Protocol", *TYPES, *COLLECTIONS]
    return [f"{n}_v1.xml" for n in names]
