"""connect() and the Client: resolution against a real platform, call(), fleet detection,
the embedded platform with nothing configured."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pytest

import opslib
from client.faults import Faults

if TYPE_CHECKING:
    from tests.conftest import Platform


def test_connect_with_arguments(platform: Platform) -> None:
    with platform.connect() as client:
        assert isinstance(client, opslib.Client)
        assert client.base_url == platform.base_url
        assert client.client_id == platform.client_id
        assert client.user_id
        assert (
            repr(client)
            == f"<opslib.Client base_url={platform.base_url!r} user_id={client.user_id!r}>"
        )


def test_connect_from_the_environment(platform: Platform, monkeypatch: pytest.MonkeyPatch) -> None:
    creds = platform.credentials("user")
    monkeypatch.setenv("OPSLIB_BASE_URL", platform.base_url)
    for key, value in creds.items():
        monkeypatch.setenv(f"OPSLIB_{key.upper()}", value)
    client = opslib.connect()
    assert client.base_url == platform.base_url
    assert client.users.get()["phone"].item() == platform.user_phone


def test_connect_from_a_profile(platform: Platform, monkeypatch: pytest.MonkeyPatch) -> None:
    config = Path(os.environ["OPSLIB_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    lines = [f'[profiles.local]\nbase_url = "{platform.base_url}"']
    lines += [f'{k} = "{v}"' for k, v in platform.credentials("admin").items()]
    config.write_text("\n".join(lines) + "\n")
    client = opslib.connect(profile="local")
    assert client.profile == "local"
    assert client.users.get()["phone"].item() == platform.admin_phone
    # the environment beats the profile, arguments beat both
    monkeypatch.setenv("OPSLIB_PROFILE", "local")
    monkeypatch.setenv("OPSLIB_PHONE", platform.user_phone)
    monkeypatch.setenv("OPSLIB_PASSWORD", platform.user_password)
    assert opslib.connect().users.get()["phone"].item() == platform.user_phone
    ops = opslib.connect(phone=platform.ops_phone, password=platform.ops_password)
    assert ops.users.get()["phone"].item() == platform.ops_phone


def test_phone_without_area_code_is_a_config_error(platform: Platform) -> None:
    with pytest.raises(opslib.ConfigError, match="area_code"):
        opslib.connect(platform.base_url, client_id="c", client_secret="s", phone="5550000001")


def test_wrong_client_secret(platform: Platform) -> None:
    with pytest.raises(opslib.AuthenticationError) as info:
        platform.connect(client_secret="not-the-secret")
    assert info.value.error == "invalid_client"
    assert "not-the-secret" not in str(info.value)


def test_call_returns_the_decoded_data(platform: Platform) -> None:
    client = platform.connect()
    data = client.call("/product/query_category")
    assert data["client_id"] == platform.client_id
    assert data["category_list"][0]["category_id"] == 1
    device = client.devices.list(limit=1)["device_id"].item()
    assert client.call("/device/query", {"device_id": device})["device_id"] == device


def test_call_refuses_the_token_op_and_unknown_paths(platform: Platform) -> None:
    client = platform.connect()
    with pytest.raises(ValueError, match="exchange_code"):
        client.call("/token/access", {})
    with pytest.raises(ValueError, match="/device/query_record"):
        client.call("/device/nope", {})


def test_call_product_add_and_delete_return_the_bare_string(fresh_platform: Platform) -> None:
    admin = fresh_platform.connect("admin")
    params = {
        "product_id": "p-call-1",
        "product_secret": "secret-secret",
        "product_name": "Call",
        "category_id": 1,
        "net_type": 1,
        "node_type": 1,
    }
    assert admin.call("/product/add", params) == "p-call-1"
    assert admin.call("/product/delete", {"product_id": "p-call-1"}) == "success"


def test_fleet_is_tried_once_per_user(platform: Platform) -> None:
    faults = Faults()
    user = platform.connect("user", transport=faults)
    mine = user.devices.list()
    owner_rows = mine[mine["owned"] == 1]
    assert set(owner_rows["user_id"]) == {user.user_id}  # shared rows show their owner
    user.devices.list()
    user.events.list("-30d")
    fleet_probes = [
        s
        for s in faults.to("/device/query_by_user")
        if s.body and s.body["params"]["user_id"] == ""
    ]
    assert len(fleet_probes) == 1  # learned once, then remembered
    ops = platform.connect()
    fleet = ops.devices.list()
    assert len(fleet) > len(mine)
    assert fleet["user_id"].nunique() > 1


def fleet_probes(faults: Faults) -> int:
    return sum(
        1
        for s in faults.to("/device/query_by_user")
        if s.body and s.body["params"] == {**s.body["params"], "user_id": "", "page_size": 1}
    )


def test_switching_user_forgets_the_fleet_answer(platform: Platform) -> None:
    faults = Faults()
    client = platform.connect("user", transport=faults)
    client.devices.list()
    client.devices.list()
    assert fleet_probes(faults) == 1  # refused once (403), then remembered
    client.auth.login(platform.area_code, platform.ops_phone, password=platform.ops_password)
    assert client.devices.list()["user_id"].nunique() > 1
    assert fleet_probes(faults) == 2  # the new user is asked again


def test_a_client_from_a_token_calls_with_it_alone(platform: Platform) -> None:
    faults = Faults()
    client = platform.connect(transport=faults)
    client.users.get()
    token = faults.to("/user/query")[-1].body["params"]["access_token"]  # type: ignore[index]
    seen = Faults()
    worker = opslib.Client.from_token(
        platform.base_url,
        access_token=token,
        client_id=platform.client_id,
        user_id=client.user_id or "",
        transport=seen,
    )
    assert worker.user_id == client.user_id
    pd.testing.assert_frame_equal(worker.devices.list(), client.devices.list())
    assert {s.body["params"]["access_token"] for s in seen.sent if s.body} == {token}
    assert token not in repr(worker)
    seen.status("/user/query", 401)  # the token refused: nothing to renew it with
    with pytest.raises(opslib.AuthenticationError, match="none to renew it with"):
        worker.users.get()
    assert seen.count("/token/access") == seen.count("/user/login") == 0


def test_close_and_context_manager(platform: Platform) -> None:
    client = platform.connect()
    with client as same:
        assert same is client
        assert len(same.products.categories()) > 0
    with pytest.raises(RuntimeError, match="closed"):
        client.products.categories()


def test_embedded_platform_in_a_subprocess(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPSLIB_", "XDG_"))}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        OPSLIB_EMBEDDED_DB=str(tmp_path / "embedded" / "demo.db"),
        OPSLIB_EMBEDDED_SCALE="small",
    )
    code = "import opslib; print(opslib.connect().devices.list().shape)"
    for _ in range(2):  # the second run reuses the seeded database
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=240
        )
        assert out.returncode == 0, out.stderr
        rows, cols = ast.literal_eval(out.stdout.strip())
        assert rows > 0
        assert cols > 10
    assert (tmp_path / "embedded" / "demo.db").exists()
    assert not (home / ".cache" / "opslib" / "demo.db").exists()


def test_embedded_platform_is_shared_within_a_process() -> None:
    first = opslib.connect()
    second = opslib.connect()
    assert first.base_url == second.base_url
    assert first.base_url.startswith("http://127.0.0.1:")
    assert first.users.get()["phone"].item() == "5550000001"  # the demo ops account
