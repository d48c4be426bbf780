"""Bulk writes: items from frames and lists, per-row results, raise or collect."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd
import pytest

import opslib
from opslib.client._writes import check_errors, check_item, items_from, native, run_writes
from opslib.client.frames import schema as S
from opslib.dialects import Dialect
from opslib.exceptions import make_status_error
from opslib.protocol import Codec
from opslib.protocol import operations as ops

ALLOWED = ("product_id", "product_name", "category_id")


def send_failing_on(*bad: str) -> Any:
    seen: list[tuple[dict[str, Any], str]] = []

    def send(params: dict[str, Any], message_id: str) -> Any:
        seen.append((params, message_id))
        if params["product_id"] in bad:
            raise make_status_error(409, "params.product_id: exists", operation="/product/add")
        return params["product_id"]

    send.seen = seen  # type: ignore[attr-defined]
    return send


def key(params: dict[str, Any], answer: Any) -> dict[str, Any]:
    return {"product_id": params["product_id"]}


def test_items_from_a_frame_drop_na_and_unwrap_numpy() -> None:
    df = pd.DataFrame({"product_id": ["a", "b"], "category_id": pd.array([1, None], dtype="Int64")})
    items, bulk = items_from(df, allowed=ALLOWED, what="t")
    assert bulk
    assert items == [{"product_id": "a", "category_id": 1}, {"product_id": "b"}]
    assert type(items[0]["category_id"]) is int


def test_items_from_dict_and_list() -> None:
    assert items_from({"product_id": "a"}, allowed=ALLOWED, what="t") == (
        [{"product_id": "a"}],
        False,
    )
    assert items_from([{"product_id": "a"}], allowed=ALLOWED, what="t")[1] is True


def test_unknown_fields_are_refused_before_sending() -> None:
    with pytest.raises(ValueError, match=r"unknown field\(s\) \['colour'\] in item 0"):
        items_from({"product_id": "a", "colour": "red"}, allowed=ALLOWED, what="t")


def test_native() -> None:
    assert native(np.int64(3)) == 3
    assert type(native(np.int64(3))) is int
    assert native(pd.NA) is None
    assert native(float("nan")) is None
    assert native(pd.NaT) is None


def test_check_errors_defaults() -> None:
    assert check_errors(None, bulk=True) == "collect"
    assert check_errors(None, bulk=False) == "raise"
    with pytest.raises(ValueError, match="errors"):
        check_errors("ignore", bulk=True)


def test_collect_reports_every_row() -> None:
    send = send_failing_on("b")
    items = [{"product_id": p} for p in "abc"]
    df = run_writes(
        items, send, schema=S.PRODUCT_WRITE_RESULT, key=key, errors="collect", bulk=True, what="add"
    )
    assert df["product_id"].tolist() == ["a", "b", "c"]
    assert df["ok"].tolist() == [True, False, True]
    assert df["error_code"].tolist() == [200, 409, 200]
    assert df.loc[1, "error_msg"] == "params.product_id: exists"
    assert str(df["ok"].dtype) == "boolean"
    assert str(df["error_code"].dtype) == "Int64"
    mids = [mid for _, mid in send.seen]
    assert len(set(mids)) == 3
    assert df["message_id"].tolist() == mids


def test_raise_for_bulk_names_the_failed_rows_after_writing_all() -> None:
    send = send_failing_on("b", "d")
    items = [{"product_id": p} for p in "abcd"]
    with pytest.raises(opslib.BulkWriteError) as info:
        run_writes(
            items,
            send,
            schema=S.PRODUCT_WRITE_RESULT,
            key=key,
            errors="raise",
            bulk=True,
            what="add",
        )
    message = str(info.value)
    assert "2 of 4 rows failed" in message
    assert "row 1 (product_id='b')" in message
    assert "row 3 (product_id='d')" in message
    assert info.value.results["ok"].tolist() == [True, False, True, False]
    assert len(send.seen) == 4
    assert isinstance(info.value.__cause__, opslib.Conflict)


def test_raise_for_one_item_raises_its_own_error() -> None:
    with pytest.raises(opslib.Conflict):
        run_writes(
            [{"product_id": "b"}],
            send_failing_on("b"),
            schema=S.PRODUCT_WRITE_RESULT,
            key=key,
            errors="raise",
            bulk=False,
            what="add",
        )


def test_empty_bulk_is_an_empty_typed_frame() -> None:
    df = run_writes(
        [],
        send_failing_on(),
        schema=S.PRODUCT_WRITE_RESULT,
        key=key,
        errors="raise",
        bulk=True,
        what="add",
    )
    assert len(df) == 0
    assert df.dtypes.to_dict() == S.PRODUCT_WRITE_RESULT.empty().dtypes.to_dict()


def _add(product_id: str, **over: object) -> dict[str, object]:
    item = {
        "product_id": product_id,
        "product_secret": "s3cret-s3cret",
        "product_name": "Lamp",
        "category_id": 1,
        "net_type": 0,
        "node_type": 1,
    }
    return {**item, **over}


def test_check_item_asks_what_the_dialect_requires_and_the_spec_s_types() -> None:
    ours, chint = Dialect(), Dialect.named("chint")
    assert check_item(Codec(ours), ops.ADD_PRODUCT, _add("p-1")) == _add("p-1")
    # a whole float (a DataFrame column with gaps) and digits stand for an integer
    assert (
        check_item(Codec(ours), ops.ADD_PRODUCT, _add("p-1", category_id=2.0))["category_id"] == 2
    )
    assert (
        check_item(Codec(ours), ops.ADD_PRODUCT, _add("p-1", category_id="2"))["category_id"] == 2
    )
    for bad, shown in ((True, "True (bool)"), (2.5, "2.5 (float)"), ("two", "'two' (str)")):
        with pytest.raises(ValueError, match=rf"category_id is {re.escape(shown)}; allowed: an"):
            check_item(Codec(ours), ops.ADD_PRODUCT, _add("p-1", category_id=bad))
    with pytest.raises(ValueError, match=r"\(dialect 'chint'\) requires vendor_type, encrypt"):
        check_item(Codec(chint), ops.ADD_PRODUCT, _add("p-1"))
    # what the client adds itself is not asked for: chint's user_id of an update (the caller)
    assert check_item(Codec(chint), ops.UPDATE_INFO, {"device_id": "d-1"}) == {"device_id": "d-1"}


def _checked_writes(errors: str, items: list[dict[str, object]], send: Any) -> pd.DataFrame:
    return run_writes(
        items,
        send,
        schema=S.PRODUCT_WRITE_RESULT,
        key=key,
        errors=errors,  # type: ignore[arg-type]
        bulk=True,
        what="add",
        check=lambda item: check_item(Codec(), ops.ADD_PRODUCT, item),
    )


def test_collect_makes_a_refused_item_a_row_and_writes_the_others() -> None:
    send = send_failing_on()
    items = [_add("a"), {"product_id": "b"}, _add("c", node_type="hub")]
    df = _checked_writes("collect", items, send)
    assert df["ok"].tolist() == [True, False, False]
    assert "requires product_secret" in df.loc[1, "error_msg"]
    assert "node_type is 'hub' (str)" in df.loc[2, "error_msg"]
    assert df["message_id"].isna().tolist() == [False, True, True]
    assert df["error_code"].isna().tolist() == [False, True, True]
    assert [p["product_id"] for p, _ in send.seen] == ["a"]  # nothing sent for b and c


def test_raise_refuses_the_whole_input_before_sending() -> None:
    send = send_failing_on()
    with pytest.raises(ValueError, match=r"add: 1 of 2 items refused before sending: item 1: "):
        _checked_writes("raise", [_add("a"), {"product_id": "b"}], send)
    assert send.seen == []
