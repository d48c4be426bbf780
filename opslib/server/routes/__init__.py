"""The route table: every operation, its request and response models, and its handler.

The app is built from :data:`ROUTES` and nothing else. What an operation is (its path,
its role, whether it writes, the shape of its answer) is read from the operations table
(:mod:`opslib.protocol.operations`), never restated here, so a route cannot exist without
a declared role (``tests/server/test_routes.py`` also checks every registered path).

Roles (protocol §6, §7): ``pre`` needs no token, ``device`` authenticates with device
credentials, ``user`` any valid access token, ``ops`` ops or admin, ``admin`` admin only.
Writing routes run in one ``BEGIN IMMEDIATE`` transaction together with their
idempotency record (protocol §10).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import BaseModel

from opslib.protocol import operations as ops
from opslib.protocol.operations import Operation
from opslib.server import models as m
from opslib.server import responses as r
from opslib.server.routes import device, product, report, user
from opslib.server.security import hash_password

__all__ = ["ROUTES", "Access", "Route"]


class Access(StrEnum):
    """Who may call a route."""

    PRE = "pre"
    DEVICE = "device"
    USER = "user"
    OPS = "ops"
    ADMIN = "admin"


_ACCESS = {a.value: a for a in Access}


@dataclass(frozen=True)
class Route:
    """One operation served.

    Attributes
    ----------
    op
        The operation (:mod:`opslib.protocol.operations`): its path, role, safety and
        answer shape.
    summary
        How the OpenAPI document names it.
    mode
        ``"envelope"`` (message_id/user_id/params), ``"report"`` (device credentials),
        ``"oauth"`` (query parameters, flat answer) or ``"manual"`` (an envelope operation
        that runs its own transactions: login, which must not hold the write lock while
        checking a password).
    prepare, precheck
        ``prepare(params)`` computes what the handler needs before the write transaction
        (a password's argon2id hash), in one of a bounded number of hash slots;
        ``precheck(ctx, params)`` runs before it: the cheap checks (client, SMS code,
        throttles) that refuse a request before it costs a hash. A repeat of a recorded
        write skips both and is replayed.
    secret, replay_guard
        Params fingerprinted under a key kept only in the server's memory (passwords, SMS
        codes), and the first answer then kept sealed (:mod:`opslib.server.replay`): a
        fingerprint in the database under its own key would be a fast hash of the
        password beside the slow argon2id one. ``replay_guard(ctx, params, same)`` runs
        on a repeat whose other params match: it throttles it like a login of the phone,
        and counts a failure when the secrets differ (``same`` false).
    no_store
        The answer carries a code, a token or a secret: ``Cache-Control: no-store``.
    """

    op: Operation
    summary: str
    handler: Callable[..., Any] | None = None
    request: type[BaseModel] | None = None
    response: Any = None
    mode: str = "envelope"
    pre_caller: Callable[[Any], str] | None = None
    prepare: Callable[[Any], Any] | None = None
    precheck: Callable[[Any, Any], None] | None = None
    secret: tuple[str, ...] = ()
    replay_guard: Callable[..., None] | None = None
    no_store: bool = False

    @property
    def path(self) -> str:
        """Where it lives."""
        return self.op.path

    @property
    def role(self) -> Access | None:
        """Who may call it (None: the operation declares no role this server knows)."""
        return _ACCESS.get(str(self.op.role))

    @property
    def writes(self) -> bool:
        """An idempotent write (protocol §10): one write transaction with its record.
        Other routes read in one snapshot, except ``manual``/``oauth`` ones."""
        return self.op.writes

    @property
    def bare(self) -> bool:
        """Its success answer is a bare JSON string (spec §4.13-4.14)."""
        return self.op.answer == "bare"

    @property
    def tag(self) -> str:
        """The OpenAPI tag: the path's first part (``user``, ``device``...)."""
        return self.op.path.split("/")[1]

    @property
    def operation(self) -> str:
        """The idempotency records' name of the operation."""
        return self.op.path

    @property
    def sometimes_pre(self) -> bool:
        """Some calls need no sign-in, by their selector (update_pwd's reset)."""
        return bool(self.op.tokenless_when)

    def pre(self, params: BaseModel) -> bool:
        """This call needs no sign-in (its selector says so: update_pwd 2)."""
        return self.role == Access.PRE or (
            self.sometimes_pre and not self.op.needs_token(dict(params))
        )

    def recorded(self, params: BaseModel) -> bool:
        """This call of a write is recorded for replay (protocol §10): every one, or those
        its selector makes writes (auth_code: sends; a verification still runs in a write
        transaction)."""
        return not self.op.safety_when or self.op.safety_for(dict(params)) == "write"


def _by_phone(p: Any) -> str:
    return f"{getattr(p, 'client_id', '')}|{p.area_code}|{p.phone}"


ROUTES: tuple[Route, ...] = (
    Route(
        ops.AUTH_CODE,
        "Send or verify an SMS code",
        user.auth_code,
        m.AuthCodeRequest,
        r.Ok[r.PublicKeyData],
        pre_caller=_by_phone,
    ),
    Route(
        ops.TOKEN,
        "Exchange a code or refresh a token",
        mode="oauth",
        response=r.TokenData,
    ),
    Route(
        ops.LOGIN,
        "Log in by password or SMS code",
        user.login,
        m.LoginRequest,
        r.Ok[r.LoginData],
        mode="manual",
        no_store=True,
    ),
    Route(
        ops.REGISTER,
        "Register with an SMS code",
        user.register,
        m.RegisterRequest,
        r.Ok[r.RegisterData],
        pre_caller=_by_phone,
        prepare=lambda p: hash_password(p.password),
        precheck=user.register_precheck,
        secret=("password", "auth_code"),
        replay_guard=user.register_replay_guard,
        no_store=True,
    ),
    Route(
        ops.QUERY_CATEGORY,
        "List product categories",
        product.query_category,
        m.QueryCategoryRequest,
        r.Ok[r.CategoryListData],
    ),
    Route(
        ops.QUERY_LIST_BY_CATEGORY,
        "List the products of a category",
        product.query_list_by_category,
        m.QueryListByCategoryRequest,
        r.Ok[r.ProductListData],
    ),
    Route(
        ops.QUERY_BY_USER,
        "Page through bound devices",
        device.query_by_user,
        m.QueryByUserRequest,
        r.Ok[r.DeviceListData],
    ),
    Route(
        ops.QUERY_RECORD,
        "Page through event records",
        device.query_record,
        m.QueryRecordRequest,
        r.Ok[r.EventListData],
    ),
    Route(
        ops.DEVICE_QUERY,
        "Read one device",
        device.query,
        m.DeviceQueryRequest,
        r.Ok[r.DeviceOut],
    ),
    Route(
        ops.USER_QUERY,
        "Read a user",
        user.query,
        m.UserQueryRequest,
        r.Ok[r.UserData],
    ),
    Route(
        ops.BIND,
        "Bind a device to the caller",
        device.bind,
        m.BindRequest,
        r.Ok[r.EmptyData],
    ),
    Route(
        ops.QUERY_SYS_SETTING,
        "Read system settings",
        user.query_sys_setting,
        m.QuerySysSettingRequest,
        r.Ok[r.SysSettingData],
    ),
    Route(
        ops.DELETE_PRODUCT,
        "Delete a product",
        product.delete,
        m.ProductDeleteRequest,
        str,
    ),
    Route(
        ops.ADD_PRODUCT,
        "Create a product",
        product.add,
        m.ProductAddRequest,
        str,
    ),
    Route(
        ops.UPDATE_SYS_SETTING,
        "Update message settings",
        user.update_sys_setting,
        m.UpdateSysSettingRequest,
        r.Ok[r.EmptyData],
    ),
    Route(
        ops.UPDATE_PWD,
        "Change or reset a password",
        user.update_pwd,
        m.UpdatePwdRequest,
        r.Ok[r.EmptyData],
        pre_caller=lambda p: f"reset|{p.area_code}|{p.phone}",
        prepare=lambda p: hash_password(p.new_password),
        precheck=user.update_pwd_precheck,
        secret=("new_password", "old_password", "auth_code"),
        replay_guard=user.update_pwd_replay_guard,
    ),
    Route(
        ops.UPDATE_USER_INFO,
        "Update the caller's profile",
        user.update_user_info,
        m.UpdateUserInfoRequest,
        r.Ok[r.EmptyData],
    ),
    Route(
        ops.UPDATE_INFO,
        "Update a device binding",
        device.update_info,
        m.UpdateInfoRequest,
        r.Ok[r.EmptyData],
    ),
    Route(
        ops.REPORT,
        "Report device events (extension)",
        report.report,
        m.ReportRequest,
        r.Ok[r.ReportData],
        mode="report",
        pre_caller=lambda req: f"device|{req.device_id}",
    ),
)
