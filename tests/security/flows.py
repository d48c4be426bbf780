"""Pre-login calls of the protocol as one-liners (SMS codes, register, login, reset)."""

from __future__ import annotations

from typing import Any

from server.helpers import Api

UNREGISTERED = "5559990001"


def send_code(api: Api, phone: str, code_model: int, **kw: Any) -> Any:
    return api.post(
        "/user/auth_code",
        {
            "client_id": api.world.client_id,
            "auth_model": 1,
            "code_model": code_model,
            "area_code": api.world.area_code,
            "phone": phone,
        },
        **kw,
    )


def verify_code(api: Api, phone: str, code_model: int, code: str, **kw: Any) -> Any:
    return api.post(
        "/user/auth_code",
        {
            "client_id": api.world.client_id,
            "auth_model": 2,
            "code_model": code_model,
            "area_code": api.world.area_code,
            "phone": phone,
            "auth_code": code,
        },
        **kw,
    )


def register(api: Api, phone: str, code: str, password: str = "new-password-1", **kw: Any) -> Any:
    return api.post(
        "/user/register",
        {
            "client_id": api.world.client_id,
            "auth_code": code,
            "area_code": api.world.area_code,
            "phone": phone,
            "password": password,
        },
        **kw,
    )


def login_password(api: Api, phone: str, password: str, **kw: Any) -> Any:
    return api.post(
        "/user/login",
        {
            "client_id": api.world.client_id,
            "login_model": 1,
            "area_code": api.world.area_code,
            "phone": phone,
            "password": password,
        },
        **kw,
    )


def login_code(api: Api, phone: str, code: str, **kw: Any) -> Any:
    return api.post(
        "/user/login",
        {
            "client_id": api.world.client_id,
            "login_model": 2,
            "area_code": api.world.area_code,
            "phone": phone,
            "auth_code": code,
        },
        **kw,
    )


def reset_password(api: Api, phone: str, code: str, new_password: str, **kw: Any) -> Any:
    return api.post(
        "/user/update_pwd",
        {
            "update_model": 2,
            "area_code": api.world.area_code,
            "phone": phone,
            "auth_code": code,
            "new_password": new_password,
        },
        **kw,
    )


def other_code(code: str) -> str:
    """A 6-digit code that is certainly not ``code``."""
    return f"{(int(code) + 1) % 1_000_000:06d}"
