"""The only place in the control plane that speaks HTTP: Redfish to BMCs, JSON to schedulers."""

from fabrictwin.fleet.redfish.bluefield import BlueField, PlatformBmc
from fabrictwin.fleet.redfish.client import BmcSession, Http, RetryPolicy
from fabrictwin.fleet.redfish.errors import AuthError, PermanentError, TemporaryError
from fabrictwin.fleet.redfish.facades import Facade, HostViews
from fabrictwin.fleet.redfish.resources import Port, System, Task

__all__ = [
    "AuthError",
    "BlueField",
    "BmcSession",
    "Facade",
    "HostViews",
    "Http",
    "PermanentError",
    "PlatformBmc",
    "Port",
    "RetryPolicy",
    "System",
    "Task",
    "TemporaryError",
]
