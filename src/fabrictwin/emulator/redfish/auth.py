"""Authentication of an emulated BMC: Basic, X-Auth-Token sessions, OpenBMC ``/login``, lockout.

Lockout: after ``lockout_threshold`` consecutive failures the account is locked for
``lockout_duration_s`` of virtual time, even for correct passwords (7.3: ``ACCOUNT_LOCKED``)
[S8]. The ``auth_fail`` fault rejects every login; ``account_locked_after(n)`` lowers the
threshold to ``n``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib

from starlette.requests import Request

from fabrictwin.emulator.device import Device
from fabrictwin.emulator.fleet import Accounts, Session
from fabrictwin.emulator.rferror import unauthorized

OPEN_PATHS = frozenset({"/redfish", "/redfish/v1", "/redfish/v1/odata", "/redfish/v1/$metadata"})
"""Paths a Redfish service answers without credentials (DSP0266 "Security details")."""


def threshold(dev: Device) -> int:
    """Failed logins before lockout (0 = never)."""
    fault = dev.faults.get("account_locked_after")
    if fault is not None and fault.count is not None:
        return fault.count
    return dev.settings.credentials.lockout_threshold


def check_password(dev: Device, acc: Accounts, user: str, password: str) -> None:
    """Accept or count a failed login.

    Raises:
        RedfishError: 401 for bad credentials, ``auth_fail``, or a locked account.
    """
    now = dev.clock.now
    if now < acc.locked_until:
        raise unauthorized(locked=True)
    creds = dev.settings.credentials
    if dev.has("auth_fail") or user != creds.username or password != creds.password:
        acc.failures += 1
        limit = threshold(dev)
        if limit and acc.failures >= limit:
            acc.locked_until = now + creds.lockout_duration_s
            acc.failures = 0
            dev.log("bmc account root locked")
            dev.sel_add("Warning", f"Account {user} locked after {limit} failed logins")
        raise unauthorized()
    acc.failures = 0


def new_session(dev: Device, acc: Accounts, user: str) -> Session:
    """Create a session with a deterministic token (hash of device, counter, time)."""
    sid = str(acc.next_id)
    acc.next_id += 1
    seed = f"{dev.ident.serial}:{sid}:{dev.clock.now}".encode()
    token = hashlib.sha256(seed).hexdigest()[:32]
    session = Session(sid, token, user, dev.clock.now)
    acc.sessions[token] = session
    return session


def authenticate(dev: Device, acc: Accounts, request: Request) -> str:
    """The user of a request (X-Auth-Token or Basic).

    Raises:
        RedfishError: 401 when neither credential is valid.
    """
    token = request.headers.get("x-auth-token")
    if token:
        session = acc.sessions.get(token)
        if session is None:
            raise unauthorized()
        return session.user
    header = request.headers.get("authorization", "")
    if header.lower().startswith("basic "):
        try:
            user, _, password = base64.b64decode(header[6:]).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            raise unauthorized() from None
        check_password(dev, acc, user, password)
        return user
    raise unauthorized()
