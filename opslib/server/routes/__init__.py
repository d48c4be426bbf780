"""The route table: every operation, its request and response models, its role, and
whether it writes.

The app is built from :data:`ROUTES` and nothing else, so a route cannot exist without a
declared role (``tests/server/test_routes.py`` also checks every registered path).

Roles (protocol §6, §7): ``pre`` needs no token, ``device`` authenticates with device
credentials, ``user`` any valid access token, ``ops`` ops or admin, ``admin`` admin only.
``writes`` routes run in one ``BEGIN IMMEDIATE`` transaction together with their
idempotency record (protocol §10).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import BaseModel

from opslib.enums import AuthModel, UpdateModel
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


@dataclass(frozen=True)
class Route:
    """One operation.

    Attributes
    ----------
    path, tag, summary
        Where it lives and how the OpenAPI document names it.
    role
        Who may call it; ``pre_when(params)`` true makes one call ``pre`` (update_pwd 2).
    writes
        An idempotent write (protocol §10): runs in one write transaction with its
        idempotency record. ``idempotent_when(params)`` narrows which calls are recorded
        (auth_code: only sends; a verification still runs in a write transaction).
        Other routes read in one snapshot, except ``manual``/``oauth`` ones.
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

    path: str
    role: Access
    writes: bool
    tag: str
    summary: str
    handler: Callable[..., Any] | None = None
    request: type[BaseModel] | None = None
    response: Any = None
    mode: str = "envelope"
    bare: bool = False
    pre_when: Callable[[Any], bool] | None = None
    idempotent_when: Callable[[Any], bool] | None = None
    pre_caller: Callable[[Any], str] | None = None
    prepare: Callable[[Any], Any] | None = None
    precheck: Callable[[Any, Any], None] | None = None
    secret: tuple[str, ...] = ()
    replay_guard: Callable[..., None] | None = None
    no_store: bool = False

    @property
    def operation(self) -> str:
        return self.path


def _by_phone(p: Any) -> str:
    return f"{getattr(p, 'client_id', '')}|{p.area_code}|{p.phone}"


ROUTES: tuple[Route, ...] = (
    Route(
        "/user/auth_code",
        Access.PRE,
        True,
        "user",
        "Send or verify an SMS code",
        user.auth_code,
        m.AuthCodeRequest,
        r.Ok[r.PublicKeyData],
        idempotent_when=lambda p: p.auth_model == AuthModel.SEND,
        pre_caller=_by_phone,
    ),
    Route(
        "/token/access",
        Access.PRE,
        False,
        "token",
        "Exchange a code or refresh a token",
        mode="oauth",
        response=r.TokenData,
    ),
    Route(
        "/user/login",
        Access.PRE,
        False,
        "user",
        "Log in by password or SMS code",
        user.login,
        m.LoginRequest,
        r.Ok[r.LoginData],
        mode="manual",
        no_store=True,
    ),
    Route(
        "/user/register",
        Access.PRE,
        True,
        "user",
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
        "/product/query_category",
        Access.USER,
        False,
        "product",
        "List product categories",
        product.query_category,
        m.QueryCategoryRequest,
        r.Ok[r.CategoryListData],
    ),
    Route(
        "/product/query_list_by_category",
        Access.USER,
        False,
        "product",
        "List the products of a category",
        product.query_list_by_category,
        m.QueryListByCategoryRequest,
        r.Ok[r.ProductListData],
    ),
    Route(
        "/device/query_by_user",
        Access.USER,
        False,
        "device",
        "Page through bound devices",
        device.query_by_user,
        m.QueryByUserRequest,
        r.Ok[r.DeviceListData],
    ),
    Route(
        "/device/query_record",
        Access.USER,
        False,
        "device",
        "Page through event records",
        device.query_record,
        m.QueryRecordRequest,
        r.Ok[r.EventListData],
    ),
    Route(
        "/device/query",
        Access.USER,
        False,
        "device",
        "Read one device",
        device.query,
        m.DeviceQueryRequest,
        r.Ok[r.DeviceOut],
    ),
    Route(
        "/user/query",
        Access.USER,
        False,
        "user",
        "Read a user",
        user.query,
        m.UserQueryRequest,
        r.Ok[r.UserData],
    ),
    Route(
        "/device/bind",
        Access.USER,
        True,
        "device",
        "Bind a device to the caller",
        device.bind,
        m.BindRequest,
        r.Ok[r.EmptyData],
    ),
    Route(
        "/user/query_sys_setting",
        Access.USER,
        False,
        "user",
        "Read system settings",
        user.query_sys_setting,
        m.QuerySysSettingRequest,
        r.Ok[r.SysSettingData],
    ),
    Route(
        "/product/delete",
        Access.ADMIN,
        True,
        "product",
        "Delete a product",
        product.delete,
        m.ProductDeleteRequest,
        str,
        bare=True,
    ),
    Route(
        "/product/add",
        Access.ADMIN,
        True,
        "product",
        "Create a product",
        product.add,
        m.ProductAddRequest,
        str,
        bare=True,
    ),
    Route(
        "/user/update_sys_setting",
        Access.USER,
        True,
        "user",
        "Update message settings",
        user.update_sys_setting,
        m.UpdateSysSettingRequest,
        r.Ok[r.EmptyData],
    ),
    Route(
        "/user/update_pwd",
        Access.USER,
        True,
        "user",
        "Change or reset a password",
        user.update_pwd,
        m.UpdatePwdRequest,
        r.Ok[r.EmptyData],
        pre_when=lambda p: p.update_model == UpdateModel.RESET,
        pre_caller=lambda p: f"reset|{p.area_code}|{p.phone}",
        prepare=lambda p: hash_password(p.new_password),
        precheck=user.update_pwd_precheck,
        secret=("new_password", "old_password", "auth_code"),
        replay_guard=user.update_pwd_replay_guard,
    ),
    Route(
        "/user/update_user_info",
        Access.USER,
        True,
        "user",
        "Update the caller's profile",
        user.update_user_info,
        m.UpdateUserInfoRequest,
        r.Ok[r.EmptyData],
    ),
    Route(
        "/device/update_info",
        Access.USER,
        True,
        "device",
        "Update a device binding",
        device.update_info,
        m.UpdateInfoRequest,
        r.Ok[r.EmptyData],
    ),
    Route(
        "/device/report",
        Access.DEVICE,
        True,
        "device",
        "Report device events (extension)",
        report.report,
        m.ReportRequest,
        r.Ok[r.ReportData],
        mode="report",
        pre_caller=lambda req: f"device|{req.device_id}",
    ),
)
