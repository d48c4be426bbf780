"""The route table: every registered route declares a role, and only the table builds routes."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute

import opslib.server
from opslib.server import create_app
from opslib.server.routes import ROUTES, Access, Route

SPEC_PATHS = {
    "/user/auth_code",
    "/token/access",
    "/user/login",
    "/user/register",
    "/product/query_category",
    "/product/query_list_by_category",
    "/device/query_by_user",
    "/device/query_record",
    "/device/query",
    "/user/query",
    "/device/bind",
    "/user/query_sys_setting",
    "/product/delete",
    "/product/add",
    "/user/update_sys_setting",
    "/user/update_pwd",
    "/user/update_user_info",
    "/device/update_info",
}


def route_table_problems(app: FastAPI, table: tuple[Any, ...]) -> list[str]:
    """What is wrong between the app's routes and the table (empty when all is well)."""
    declared = {route.path: route for route in table}
    problems = []
    for route in app.routes:
        if not isinstance(route, APIRoute):
            continue  # FastAPI's own /openapi.json and /docs
        entry = declared.get(route.path)
        if entry is None:
            problems.append(f"{route.path}: registered but not in the route table")
        elif not isinstance(entry.role, Access):
            problems.append(f"{route.path}: no role")
        if route.methods != {"POST"}:
            problems.append(f"{route.path}: not POST-only")
    return problems


def test_every_registered_route_declares_a_role(tmp_path: Any) -> None:
    app = create_app(tmp_path / "x.db")
    assert route_table_problems(app, ROUTES) == []
    registered = {r.path for r in app.routes if isinstance(r, APIRoute)}
    assert registered == SPEC_PATHS | {"/device/report"}


def test_a_route_without_a_role_fails_the_check(tmp_path: Any) -> None:
    app = create_app(tmp_path / "x.db")
    broken = tuple(
        replace(r, op=replace(r.op, role=None)) if r.path == "/device/query" else r  # type: ignore[arg-type]
        for r in ROUTES
    )
    assert route_table_problems(app, broken) == ["/device/query: no role"]

    async def rogue() -> None: ...

    app.add_api_route("/rogue", rogue, methods=["POST"])
    assert "/rogue: registered but not in the route table" in route_table_problems(app, ROUTES)


def test_roles_and_writes_follow_the_protocol() -> None:
    table: dict[str, Route] = {r.path: r for r in ROUTES}
    assert {p for p, r in table.items() if r.role is Access.ADMIN} == {
        "/product/add",
        "/product/delete",
    }
    assert {p for p, r in table.items() if r.role is Access.PRE} == {
        "/user/auth_code",
        "/token/access",
        "/user/login",
        "/user/register",
    }
    assert {p for p, r in table.items() if r.writes} == {
        "/user/auth_code",
        "/user/register",
        "/user/update_pwd",
        "/user/update_user_info",
        "/user/update_sys_setting",
        "/product/add",
        "/product/delete",
        "/device/bind",
        "/device/update_info",
        "/device/report",
    }


def test_no_operation_path_is_written_in_the_server() -> None:
    """Paths live in the operations table (opslib/protocol/operations.py); the server
    reads them there. simulate.py is a client of the platform, moving onto the protocol
    layer on its own."""
    literal = re.compile(r"""['"]/(user|device|product|token)/[a-z_]+['"]""")
    root = Path(opslib.server.__file__).parent
    found = [
        f"{path.relative_to(root)}:{n}: {line.strip()}"
        for path in sorted(root.rglob("*.py"))
        if path.name != "simulate.py"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if literal.search(line)
    ]
    assert found == []
