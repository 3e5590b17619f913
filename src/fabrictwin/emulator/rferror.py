"""The Redfish error a workflow raises and the app renders as the standard envelope.

Envelope and message ids follow DSP0266 section "Error responses" and the Base registry;
texts the BlueField BMC is known to return are from section 7.3 of the reference [S8][S13].
"""

from __future__ import annotations

BASE = "Base.1.18.1"
"""Base registry version seen on BF-25.x BMCs (``Base.1.18.1.Success``) [S13]."""


class RedfishError(Exception):
    """An HTTP error with a Redfish message id; one handler renders every one of them."""

    def __init__(
        self,
        status: int,
        message_id: str,
        message: str,
        *,
        args: tuple[str, ...] = (),
        resolution: str = "None",
        headers: dict[str, str] | None = None,
    ) -> None:
        self.status = status
        self.message_id = message_id if "." in message_id else f"{BASE}.{message_id}"
        self.message = message
        self.args_ = args
        self.resolution = resolution
        self.headers = headers or {}
        super().__init__(f"{status} {self.message_id}: {message}")

    def body(self) -> dict[str, object]:
        """The ``{"error": {...}}`` envelope."""
        info = {
            "@odata.type": "#Message.v1_1_1.Message",
            "MessageId": self.message_id,
            "Message": self.message,
            "MessageArgs": list(self.args_),
            "MessageSeverity": "Critical" if self.status >= 500 else "Warning",
            "Resolution": self.resolution,
        }
        return {
            "error": {
                "code": self.message_id,
                "message": self.message,
                "@Message.ExtendedInfo": [info],
            }
        }


def not_found(uri: str) -> RedfishError:
    """404 ``ResourceNotFound``."""
    kind = uri.rstrip("/").rsplit("/", 1)[-1]
    return RedfishError(
        404,
        "ResourceNotFound",
        f"The requested resource of type {kind} named '{kind}' was not found.",
        args=(kind, kind),
        resolution="Provide a valid resource identifier and resubmit the request.",
    )


def busy() -> RedfishError:
    """400 "An update is in progress" (only one update at a time) [S8]."""
    return RedfishError(
        400,
        "GeneralError",
        "An update is in progress. Wait for the current update to complete and resubmit.",
        resolution="Retry the operation when the current update is complete.",
    )


def bad_value(value: str, prop: str) -> RedfishError:
    """400 ``ActionParameterValueNotInList``/``PropertyValueNotInList``."""
    return RedfishError(
        400,
        "PropertyValueNotInList",
        f"The value '{value}' for the property {prop} is not in the list of acceptable values.",
        args=(value, prop),
        resolution="Choose a value from the enumeration list and resubmit.",
    )


def missing(prop: str) -> RedfishError:
    """400 ``PropertyMissing``."""
    return RedfishError(
        400,
        "PropertyMissing",
        f"The property {prop} is a required property and must be included in the request.",
        args=(prop,),
        resolution="Ensure that the property is in the request body and resubmit.",
    )


def not_supported(action: str) -> RedfishError:
    """400 ``ActionNotSupported``."""
    return RedfishError(
        400,
        "ActionNotSupported",
        f"The action {action} is not supported by the resource.",
        args=(action,),
        resolution="The action supplied cannot be resubmitted to the implementation.",
    )


def unauthorized(locked: bool = False) -> RedfishError:
    """401: bad or missing credentials, or an account locked after failed logins (7.3)."""
    if locked:
        return RedfishError(
            401,
            "GeneralError",
            "ACCOUNT_LOCKED: the account is locked after too many failed logins.",
            resolution="Wait for the lockout duration to pass and retry.",
            headers={"WWW-Authenticate": 'Basic realm="BMC"'},
        )
    return RedfishError(
        401,
        "NoValidSession",
        "There is no valid session established with the implementation.",
        resolution="Establish a session before attempting any operations.",
        headers={"WWW-Authenticate": 'Basic realm="BMC"'},
    )


def unavailable(retry_after_s: int) -> RedfishError:
    """503 while the BMC starts or resets (7.3)."""
    return RedfishError(
        503,
        "ServiceTemporarilyUnavailable",
        f"The service is temporarily unavailable.  Retry in {retry_after_s} seconds.",
        args=(str(retry_after_s),),
        resolution="Wait for the indicated retry duration and retry the operation.",
        headers={"Retry-After": str(retry_after_s)},
    )


def precondition_failed() -> RedfishError:
    """412 when If-Match does not match the resource ETag."""
    return RedfishError(
        412,
        "PreconditionFailed",
        "The ETag supplied did not match the ETag required to change this resource.",
        resolution="Try the operation again using the appropriate ETag.",
    )
