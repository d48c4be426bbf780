"""opslib.server.store.users: users, their settings and failed logins on a real SQLite file."""

from __future__ import annotations

import sqlite3

import pytest

from opslib.server import demo
from opslib.server.store import users

from ..factories import World


def test_users_are_found_by_id_and_by_phone(conn: sqlite3.Connection) -> None:
    alice = users.get_user(conn, user_id="u-alice")
    assert alice is not None
    assert (alice["area_code"], alice["phone"]) == (demo.AREA_CODE, demo.USER_PHONE)
    by_phone = users.get_user_by_phone(conn, area_code=demo.AREA_CODE, phone=demo.USER_PHONE)
    assert by_phone == alice
    assert users.get_user_by_phone(conn, area_code="44", phone=demo.USER_PHONE) is None
    assert users.get_user(conn, user_id="u-nobody") is None
    assert users.get_user_by_identity(conn, identity_id="nobody") is None


def test_a_new_user_gets_a_settings_row(conn: sqlite3.Connection) -> None:
    before = users.count_users(conn)
    users.insert_user(
        conn,
        user_id="u-new",
        area_code="1",
        phone="5550000099",
        password_hash="x",
        role=1,
        status=1,
        now=77,
    )
    assert users.count_users(conn) == before + 1
    settings = users.get_settings(conn, user_id="u-new")
    assert settings is not None
    assert settings["gmt_modified"] == 77


def test_profile_and_settings_take_known_columns_only(conn: sqlite3.Connection) -> None:
    users.update_profile(conn, user_id="u-bob", fields={"nick_name": "Robert"}, now=5)
    bob = users.get_user(conn, user_id="u-bob")
    assert bob is not None
    assert (bob["nick_name"], bob["gmt_modified"]) == ("Robert", 5)
    with pytest.raises(ValueError, match=r"not profile columns: \['role'\]"):
        users.update_profile(conn, user_id="u-bob", fields={"role": 3}, now=6)
    users.update_settings(conn, user_id="u-bob", fields={"dnd_start": 1320}, now=7)
    settings = users.get_settings(conn, user_id="u-bob")
    assert settings is not None
    assert (settings["dnd_start"], settings["gmt_modified"]) == (1320, 7)
    with pytest.raises(ValueError, match=r"not setting columns: \['phone'\]"):
        users.update_settings(conn, user_id="u-bob", fields={"phone": "1"}, now=8)


def test_password_and_last_login(conn: sqlite3.Connection) -> None:
    users.set_password(conn, user_id="u-bob", password_hash="new-hash", now=9)
    users.set_last_login(conn, user_id="u-bob", now=10)
    bob = users.get_user(conn, user_id="u-bob")
    assert bob is not None
    assert (bob["password_hash"], bob["gmt_modified"], bob["gmt_last_login"]) == (
        "new-hash",
        9,
        10,
    )


def test_failed_logins_are_counted_since_a_moment(conn: sqlite3.Connection, world: World) -> None:
    phone = world["bob"].phone
    for at, address in ((100, "a"), (200, "b"), (300, "a")):
        users.add_login_failure(conn, area_code="1", phone=phone, now=at, address=address)
    assert users.login_failures_since(conn, area_code="1", phone=phone, since=150) == (2, 200, 300)
    assert users.login_failures_since(conn, area_code="1", phone=phone, since=0, address="a") == (
        2,
        100,
        300,
    )
    assert users.login_failures_since(conn, area_code="1", phone="other", since=0) == (
        0,
        None,
        None,
    )
    users.clear_login_failures(conn, area_code="1", phone=phone, address="a")
    assert users.login_failures_since(conn, area_code="1", phone=phone, since=0) == (1, 200, 200)
    users.clear_login_failures(conn, area_code="1", phone=phone)
    assert users.login_failures_since(conn, area_code="1", phone=phone, since=0)[0] == 0
