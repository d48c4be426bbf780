"""opslib.widgets.products: the form that adds a product or deletes one after a confirmation."""

from __future__ import annotations

import pandas as pd
import pytest

from opslib import widgets


def _labels(dialect: str = "opslib") -> dict[str, dict[int, str]]:
    """What ``client.products.labels()`` gives on a platform of ``dialect``."""
    from opslib.client.resources.products import _CODED
    from opslib.dialects import Dialect
    from opslib.protocol import Codec

    codec = Codec(None if dialect == "opslib" else Dialect.named(dialect))
    return {
        name: dict(codec.labels("product_status" if name == "status" else name, enum))
        for name, enum in _CODED.items()
    }


class _FakeProducts:
    """Records calls; answers like the client's write frames (key, ok, error_code...)."""

    def __init__(self, dialect: str = "opslib") -> None:
        self.calls: list[tuple[str, object]] = []
        self._labels = _labels(dialect)

    def labels(self) -> dict[str, dict[int, str]]:
        return self._labels

    def _frame(self, pid: str, ok: bool) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "product_id": [pid],
                "ok": [ok],
                "error_code": [200 if ok else 409],
                "error_msg": ["" if ok else "params.product_id: product still has devices"],
                "message_id": ["m"],
            }
        )

    def add(self, item: dict, errors: str) -> pd.DataFrame:
        self.calls.append(("add", item))
        return self._frame(item["product_id"], True)

    def delete(self, ids: list[str], errors: str) -> pd.DataFrame:
        self.calls.append(("delete", ids))
        return self._frame(ids[0], False)


class _FakeClient:
    def __init__(self, dialect: str = "opslib") -> None:
        self.products = _FakeProducts(dialect)


def test_product_form_adds_with_coded_dropdowns_and_confirms_deletes() -> None:
    from analysis.frames import CATEGORIES, products

    current = products(
        {"product_id": "p-a", "product_name": "A", "category_id": 1, "net_type": 1, "node_type": 1},
    )
    client = _FakeClient()
    written: list[str] = []
    form = widgets.ProductForm(
        client,
        CATEGORIES,
        current,
        on_write=lambda action, _r: written.append(action),
        account="Admin desk (555*****09), role admin",
        role="admin",
    )
    assert not form.add_button.disabled
    assert "Connected as Admin desk (555*****09), role admin." in form.account_note.value
    assert [o[0] for o in form.fields["net_type"].options] == [
        "Wi-Fi", "BLE", "Zigbee", "cellular", "Ethernet",
    ]  # fmt: skip
    form.fields["product_id"].value = "p-new"
    form.fields["product_name"].value = "New"
    form.fields["product_secret"].value = "a-long-secret"
    form.fields["category_id"].value = 2
    form.fields["net_type"].value = 3
    form.fields["node_type"].value = 3
    form.add_button.click()
    action, item = client.products.calls[0]
    assert action == "add"
    assert item["category_id"] == 2
    assert item["net_type"] == 3
    assert item["node_type"] == 3
    assert "product_icon" not in item
    assert "done" in form.message.value
    assert "a-long-secret" not in form.message.value

    form.delete_button.click()  # asks first, deletes nothing yet
    assert form.pending_delete == "p-a"
    assert len(client.products.calls) == 1
    form.cancel_button.click()
    assert form.pending_delete == ""
    assert form.confirm_delete() is None
    form.delete_button.click()
    form.confirm_button.click()
    assert client.products.calls[-1] == ("delete", ["p-a"])
    assert "refused (409)" in form.message.value
    assert written == ["add", "delete"]
    assert form.last_result is not None
    assert not bool(form.last_result["ok"].iloc[0])


def test_product_form_for_an_ops_account_disables_writes_and_says_how_to_connect() -> None:
    from analysis.frames import CATEGORIES, products

    current = products(
        {"product_id": "p-a", "product_name": "A", "category_id": 1, "net_type": 1, "node_type": 1},
    )
    client = _FakeClient()
    form = widgets.ProductForm(
        client, CATEGORIES, current, account="Ops desk (555*****01), role ops", role="ops"
    )
    assert form.add_button.disabled
    assert form.delete_button.disabled
    assert form.confirm_button.disabled
    note = form.account_note.value
    assert "Ops desk (555*****01), role ops" in note
    assert "needs the <b>admin</b> role" in note
    assert "OPSLIB_PROFILE" in note
    with pytest.raises(PermissionError, match="admin role"):
        form.add()
    assert client.products.calls == []
    assert form.fields["encrypt_type"].style.description_width == "110px"


def test_product_form_offers_the_platforms_codes() -> None:
    """Under chint, Wi-Fi is code 0 and a product is a device (0) or a gateway (1): the
    form sends those, never opslib's codes (where 1 is Wi-Fi and LoRa on chint)."""
    from analysis.frames import CATEGORIES, products

    client = _FakeClient("chint")
    form = widgets.ProductForm(client, CATEGORIES, products(), role="admin")
    assert form.fields["net_type"].options[0] == ("Wi-Fi", 0)
    assert [o[0] for o in form.fields["node_type"].options] == ["device", "gateway"]
    for name, value in (("product_id", "p-c"), ("product_name", "C"), ("product_secret", "s" * 8)):
        form.fields[name].value = value
    form.add_button.click()
    _, item = client.products.calls[0]
    assert (item["net_type"], item["node_type"]) == (0, 0)
