"""opslib.server.services.codes: SMS codes sent (throttled), checked and consumed."""

from __future__ import annotations

import pytest

from opslib.enums import CodeModel
from opslib.server import FakeClock, security
from opslib.server.errors import ApiError
from opslib.server.services import codes
from opslib.server.sms import outbox_path
from opslib.server.store import sms as sms_store

from ..factories import World
from .conftest import MakeContext


def _outbox(world: World) -> list[str]:
    path = outbox_path(world.db)
    return path.read_text().splitlines() if path.exists() else []


def test_a_code_goes_out_once_per_interval(
    ctx: MakeContext, world: World, clock: FakeClock
) -> None:
    phone = world["bob"].phone
    codes.send_code(ctx(), area_code="1", phone=phone, purpose=CodeModel.LOGIN)
    assert len(_outbox(world)) == 1
    with pytest.raises(ApiError, match=r"params\.phone: at most one code per 60 s") as early:
        codes.send_code(ctx(), area_code="1", phone=phone, purpose=CodeModel.LOGIN)
    assert early.value.status == 429
    assert early.value.headers == {"Retry-After": "60"}
    clock.advance(seconds=60)
    codes.send_code(ctx(), area_code="1", phone=phone, purpose=CodeModel.LOGIN)
    assert len(_outbox(world)) == 2


def test_a_code_goes_out_only_where_it_can_be_used(ctx: MakeContext, world: World) -> None:
    request = ctx()
    codes.send_code(request, area_code="1", phone=world["bob"].phone, purpose=CodeModel.REGISTER)
    assert _outbox(world) == []  # bob is registered: nothing to register
    sends, _ = sms_store.sends_since(request.conn, area_code="1", phone=world["bob"].phone, since=0)
    assert sends == 1  # but the send counts, so the answer tells nothing


def test_a_wrong_code_counts_an_attempt_and_a_right_one_is_used_once(
    ctx: MakeContext, world: World
) -> None:
    phone = world["bob"].phone
    request = ctx()
    sms_store.put_code(
        request.conn,
        area_code="1",
        phone=phone,
        purpose=CodeModel.LOGIN,
        code_hash=security.sha256_hex("123456"),
        now=request.now,
        expires_at=request.now + 300_000,
    )
    key = {"area_code": "1", "phone": phone, "purpose": CodeModel.LOGIN}
    with pytest.raises(ApiError, match=r"params\.auth_code: wrong") as wrong:
        codes.check_code(ctx(), **key, code="654321", consume=True)
    assert (wrong.value.status, wrong.value.persist) == (422, True)  # the attempt is kept
    row = sms_store.get_code(request.conn, **key)
    assert row is not None
    assert row["attempts"] == 1
    codes.check_code(ctx(), **key, code="123456", consume=False)  # verification alone
    codes.check_code(ctx(), **key, code="123456", consume=True)
    with pytest.raises(ApiError, match=r"params\.auth_code: wrong"):
        codes.check_code(ctx(), **key, code="123456", consume=True)
