"""Wrong device secrets are throttled per device and per client address.

``/device/report`` needs no login, so a device secret could be guessed at the speed of
the server: 200 wrong ones took 0.2 s and none was refused. Now the 11th wrong secret of
one device within 15 minutes, or the 51st from one address, is a 429 (the right secret
included) until the window passes.
"""

from __future__ import annotations

import uuid
from typing import Any

from server.helpers import Api

from opslib.server import FakeClock


def _report(api: Api, device_id: str, secret: str) -> Any:
    body = {
        "message_id": str(uuid.uuid4()),
        "device_id": device_id,
        "device_secret": secret,
        "events": [{"event_type": 1}],
    }
    return api.client.post("/device/report", json=body)


def _bind(api: Api, device_id: str, secret: str) -> Any:
    params = {"device_id": device_id, "device_secret": secret, "product_id": "p-lamp"}
    return api.as_user("bob", "/device/bind", params)


def _assert_throttled(r: Any) -> None:
    assert r.status_code == 429, r.text
    assert int(r.headers["Retry-After"]) > 0
    assert "too many wrong secrets" in r.json()["error_msg"]


def test_wrong_secrets_of_one_device_are_throttled(api: Api, clock: FakeClock) -> None:
    right = api.world.device_secret
    statuses = [_report(api, "dev-a1", f"wrong-secret-{i}").status_code for i in range(10)]
    assert statuses == [401] * 10
    _assert_throttled(_report(api, "dev-a1", "wrong-secret-x"))
    _assert_throttled(_report(api, "dev-a1", right))  # the right one waits too
    _assert_throttled(_bind(api, "dev-a1", right))
    assert _report(api, "dev-a2", right).status_code == 200  # another device is not affected
    clock.advance(ms=15 * 60_000)
    assert _report(api, "dev-a1", right).status_code == 200


def test_unknown_devices_count_like_wrong_secrets(api: Api) -> None:
    statuses = [_report(api, "dev-nope", f"wrong-secret-{i}").status_code for i in range(11)]
    assert statuses == [401] * 10 + [429]


def test_wrong_secrets_from_one_address_are_throttled(api: Api, clock: FakeClock) -> None:
    right = api.world.device_secret
    for i in range(50):  # 50 devices, one guess each
        assert _report(api, f"dev-probe-{i}", "wrong-secret").status_code == 401
    _assert_throttled(_report(api, "dev-probe-x", "wrong-secret"))
    _assert_throttled(_report(api, "dev-a2", right))
    clock.advance(ms=15 * 60_000)
    assert _report(api, "dev-a2", right).status_code == 200


def test_bind_counts_wrong_secrets_too(api: Api) -> None:
    statuses = [_bind(api, "dev-free", f"wrong-secret-{i}").status_code for i in range(11)]
    assert statuses == [422] * 10 + [429]
    _assert_throttled(_report(api, "dev-free", api.world.device_secret))
