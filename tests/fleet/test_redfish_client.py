"""The Redfish client retries what is temporary, stops on what is permanent, and names the device,
URI, HTTP status and Redfish MessageId in every error."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import httpx
import pytest

from fabrictwin.fleet.redfish import AuthError, BmcSession, Http, PermanentError, RetryPolicy, TemporaryError


def error(status: int, code: str, message: str) -> httpx.Response:
    info = [{"MessageId": code, "Message": message}]
    return httpx.Response(
        status, json={"error": {"code": code, "message": message, "@Message.ExtendedInfo": info}}
    )


def call(handler: Callable[[httpx.Request], httpx.Response], path: str = "/redfish/v1/Systems/Bluefield"):  # type: ignore[no-untyped-def]
    sleeps: list[float] = []

    async def sleep(s: float) -> None:
        sleeps.append(s)

    async def go():  # type: ignore[no-untyped-def]
        async with Http(
            4, transport=httpx.MockTransport(handler), retry=RetryPolicy(attempts=3), sleep=sleep
        ) as http:
            session = BmcSession(http, "http://bmc-7.test", "dpu7", "root", "0penBmc")
            return await session.get(path)

    return asyncio.run(go()), sleeps


def login_ok(request: httpx.Request) -> httpx.Response | None:
    if request.url.path.endswith("/Sessions"):
        return httpx.Response(201, headers={"X-Auth-Token": "t1"}, json={})
    return None


def test_a_503_is_retried_with_doubling_back_off_then_succeeds() -> None:
    answers = [error(503, "Base.1.18.1.ServiceTemporarilyUnavailable", "BMC starting"), None]

    def handler(request: httpx.Request) -> httpx.Response:
        if (r := login_ok(request)) is not None:
            return r
        if answers:
            a = answers.pop(0)
            if a is not None:
                return a
        return httpx.Response(200, json={"PowerState": "On"})

    body, sleeps = call(handler)
    assert body == {"PowerState": "On"} and sleeps == [0.2]


def test_bad_credentials_fail_without_retries_naming_device_uri_status_and_message_id() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return error(401, "Base.1.18.1.ResourceAtUriUnauthorized", "Invalid username or password")

    with pytest.raises(AuthError) as info:
        call(handler)
    exc = info.value
    assert (exc.device, exc.status, exc.code) == ("dpu7", 401, "Base.1.18.1.ResourceAtUriUnauthorized")
    # the session was refused, Basic auth was tried on the resource itself, and refused too
    assert exc.uri == "http://bmc-7.test/redfish/v1/Systems/Bluefield"
    assert str(exc).startswith("dpu7 http://bmc-7.test/redfish/v1/Systems/Bluefield: Invalid username")


def test_a_busy_bmc_is_temporary_and_a_missing_resource_permanent() -> None:
    def busy(request: httpx.Request) -> httpx.Response:
        return login_ok(request) or error(400, "Base.1.18.1.ResourceInUse", "An update is in progress")

    with pytest.raises(TemporaryError, match=r"An update is in progress \(HTTP 400\)") as info:
        call(busy)
    assert info.value.temporary and info.value.delay_s == 60.0

    def missing(request: httpx.Request) -> httpx.Response:
        return login_ok(request) or error(404, "Base.1.18.1.ResourceNotFound", "not found")

    with pytest.raises(PermanentError, match=r"\[Base.1.18.1.ResourceNotFound\]"):
        call(missing)


def test_connection_refused_and_timeouts_are_temporary_after_three_tries() -> None:
    tries = []

    def refused(request: httpx.Request) -> httpx.Response:
        tries.append(1)
        raise httpx.ConnectError("refused", request=request)

    with pytest.raises(TemporaryError, match="unreachable"):
        call(refused)
    assert len(tries) == 3

    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("hang", request=request)

    with pytest.raises(TemporaryError, match="timed out"):
        call(slow)


def test_an_expired_session_is_renewed_once() -> None:
    tokens = iter(["old", "new"])

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/Sessions"):
            return httpx.Response(201, headers={"X-Auth-Token": next(tokens)}, json={})
        if request.headers.get("X-Auth-Token") != "new":
            return error(401, "Base.1.18.1.InsufficientPrivilege", "session expired")
        return httpx.Response(200, json={"ok": True})

    body, _ = call(handler)
    assert body == {"ok": True}


def test_a_simple_update_returns_the_task_from_the_body_or_the_location_header() -> None:
    from fabrictwin.fleet.redfish import BlueField

    def handler(request: httpx.Request) -> httpx.Response:
        if (r := login_ok(request)) is not None:
            return r
        if request.url.path.endswith("SimpleUpdate"):
            assert json.loads(request.content)["Targets"] == [
                "/redfish/v1/UpdateService/FirmwareInventory/DPU_OS"
            ]
            return httpx.Response(202, headers={"Location": "/redfish/v1/TaskService/Tasks/6"})
        return httpx.Response(200, json={"Id": "6", "TaskState": "Running", "TaskStatus": "OK"})

    async def go():  # type: ignore[no-untyped-def]
        async with Http(2, transport=httpx.MockTransport(handler)) as http:
            bf = BlueField(BmcSession(http, "http://bmc-1.test/redfish/v1", "dpu1", "root", "x"))
            return await bf.simple_update("http://img/x.bfb", "HTTP")

    task = asyncio.run(go())
    assert (task.id, task.uri, task.state, task.done) == (
        "6",
        "/redfish/v1/TaskService/Tasks/6",
        "Running",
        False,
    )
