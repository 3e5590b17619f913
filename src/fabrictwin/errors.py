"""The error hierarchy shared by every package.

Every error the library raises on purpose derives from :class:`FabricTwinError`,
so the CLI can print it without a traceback and exit with status 2.
"""

from __future__ import annotations


class FabricTwinError(Exception):
    """Base class for every deliberate error of fabrictwin."""


class SpecError(FabricTwinError, ValueError):
    """Bad input: a description that breaks a rule.

    The message names where the bad value sits (file, line, YAML path when known),
    the bad value and the rule it breaks, e.g.
    ``cluster.yaml:12 fabric.compute.link: 'ib-ndrr' is not a known link; did you mean 'ib-ndr'?``
    """

    def __init__(
        self,
        message: str,
        *,
        path: str = "",
        file: str = "",
        line: int | None = None,
    ) -> None:
        self.rule = message
        self.path = path
        self.file = file
        self.line = line
        super().__init__(self._render())

    def _render(self) -> str:
        where = self.file
        if self.file and self.line is not None:
            where = f"{self.file}:{self.line}"
        prefix = " ".join(part for part in (where, self.path and f"{self.path}:") if part)
        return f"{prefix} {self.rule}" if prefix else self.rule


class Infeasible(FabricTwinError):
    """A valid description that cannot run or be built, with the reason.

    ``nearest`` optionally carries the closest feasible choice, in words.
    """

    def __init__(self, reason: str, *, nearest: str | None = None) -> None:
        self.reason = reason
        self.nearest = nearest
        text = reason if nearest is None else f"{reason}; nearest feasible: {nearest}"
        super().__init__(text)


class NotFound(FabricTwinError, LookupError):
    """A named thing (catalog id, device, task) does not exist."""


class DeviceError(FabricTwinError):
    """A control-plane operation on one device failed.

    Carries the device (BMC address or serial), the resource URI, the HTTP status and the
    Redfish message id where they are known.
    """

    def __init__(
        self,
        message: str,
        *,
        device: str = "",
        uri: str = "",
        status: int | None = None,
        code: str = "",
        temporary: bool = False,
    ) -> None:
        self.device = device
        self.uri = uri
        self.status = status
        self.code = code
        self.temporary = temporary
        parts = [p for p in (device, uri) if p]
        where = " ".join(parts)
        tail = "".join([f" (HTTP {status})" if status is not None else "", f" [{code}]" if code else ""])
        super().__init__(f"{where}: {message}{tail}" if where else f"{message}{tail}")
