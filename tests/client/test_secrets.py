"""Secrets a platform sends in its reads never reach a frame unless asked for.

The real platform never sends them; a transport around it adds ``device_secret`` and
``product_secret`` to its answers, as the published platform's reads do (also nested in
``properties``, where a dialect's open object could carry one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from client.faults import Faults

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform


def _with_device_secrets(body: Any) -> Any:
    data = body.get("data")
    devices = data.get("device_list") if isinstance(data, dict) else None
    for device in devices if devices is not None else [data]:
        if isinstance(device, dict) and "device_id" in device:
            device["device_secret"] = f"dsec-{device['device_id']}"
            device.setdefault("properties", {})["device_secret"] = "nested-secret"
    return body


def _with_product_secrets(body: Any) -> Any:
    for product in (body.get("data") or {}).get("product_list") or []:
        product["product_secret"] = f"psec-{product['product_id']}"
    return body


def _faults() -> Faults:
    faults = Faults()
    faults.rewrite("/device/query_by_user", _with_device_secrets)
    faults.rewrite("/device/query", _with_device_secrets)
    faults.rewrite("/product/query_list_by_category", _with_product_secrets)
    return faults


def _no_secret(frame: Any) -> None:
    text = frame.to_csv()
    for secret in ("dsec-", "psec-", "nested-secret"):
        assert secret not in text
    assert not [c for c in frame.columns if "secret" in c]


def test_secrets_a_platform_sends_are_dropped_by_default(platform: ServedPlatform) -> None:
    client = platform.connect(transport=_faults())
    devices = client.devices.list(limit=20)
    assert len(devices) == 20
    _no_secret(devices)
    _no_secret(client.devices.get(devices["device_id"].iloc[0]))
    for page in client.devices.iter_pages(page_size=10, limit=20):
        _no_secret(page)
    products = client.products.list()
    assert len(products) > 0
    _no_secret(products)


def test_include_secrets_keeps_them(platform: ServedPlatform) -> None:
    client = platform.connect(transport=_faults())
    devices = client.devices.list(limit=5, include_secrets=True)
    assert (devices["device_secret"] == "dsec-" + devices["device_id"]).all()
    assert str(devices["device_secret"].dtype) == "string"
    one = client.devices.get(devices["device_id"].iloc[0], include_secrets=True)
    assert one["device_secret"].item() == "dsec-" + devices["device_id"].iloc[0]
    products = client.products.list(include_secrets=True)
    assert (products["product_secret"] == "psec-" + products["product_id"]).all()


def test_a_platform_without_secrets_gives_an_empty_secret_column(platform: ServedPlatform) -> None:
    client = platform.connect()
    devices = client.devices.list(limit=3, include_secrets=True)
    assert devices["device_secret"].isna().all()
