"""The platform's one edge under ``chint``: ``opslib server --dialect chint`` and the
client's ``dialect="chint"`` together.

Two platforms serve copies of one database folded onto that platform's demo data
(``fold_onto_dialect``): one speaks opslib's dialect, one the CHINT smart cloud's. A client
connected to each with its dialect reads the same records (labels from the dialect); the
wire of the chint one has that platform's facts (0-based selectors, codes in the body,
epoch-ms gmt_*, pages of 100), all from ``opslib/dialects/chint.py`` through the codec.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pandas as pd
import pytest
from client.faults import Faults
from conftest import _copy_db, _demo_fields

import opslib
from opslib import analysis
from opslib.dialects import Dialect
from opslib.server.runner import start_in_thread
from opslib.server.security import demo_device_secret
from opslib.server.seed.dialect import fold_onto_dialect

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform as PlatformType

_CHINT = opslib.Dialect.named("chint")


def _pair(seeded_db: Path, base: Path) -> list[PlatformType]:
    """Our platform and the chint one, each over its own copy of one chint-seeded db."""
    from conftest import ServedPlatform

    template = base / "chint-template.db"
    _copy_db(seeded_db, template)
    fold_onto_dialect(template, Dialect.named("chint"))
    started = []
    for dialect in ("opslib", "chint"):
        db = base / f"{dialect}.db"
        _copy_db(template, db)
        url, stop = start_in_thread(db, dialect=dialect)
        started.append(ServedPlatform(base_url=url, db=db, stop=stop, **_demo_fields()))
    return started


@pytest.fixture(scope="module")
def chint_pair(
    seeded_db: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[PlatformType, PlatformType]]:
    started = _pair(seeded_db, tmp_path_factory.mktemp("chint"))
    yield started[0], started[1]
    for running in started:
        running.stop()


@pytest.fixture
def fresh_pair(seeded_db: Path, tmp_path: Path) -> Iterator[tuple[PlatformType, PlatformType]]:
    """A pair of its own, for a test that writes."""
    started = _pair(seeded_db, tmp_path)
    yield started[0], started[1]
    for running in started:
        running.stop()


def _connect(
    platform: PlatformType, dialect: str, role: str = "ops", **kw: object
) -> opslib.Client:
    return platform.connect(role, dialect=dialect, **kw)


def test_login_and_the_wire_speak_chint(chint_pair: tuple[PlatformType, PlatformType]) -> None:
    _, chint = chint_pair
    faults = Faults()
    client = _connect(chint, "chint", transport=faults)
    assert client.user_id
    login = faults.to("/user/login")[-1].body
    assert login["params"]["login_model"] == 0  # type: ignore[index]
    envelope = {"message_id": "m1", "user_id": client.user_id, "params": {}}
    answer = httpx.post(f"{chint.base_url}/device/query_by_user", json=envelope)
    assert answer.status_code == 200
    assert answer.json()["error_code"] == 460
    assert answer.json()["error_description"]
    assert answer.json()["data"] is None


def test_same_records_as_under_our_dialect(chint_pair: tuple[PlatformType, PlatformType]) -> None:
    ours_platform, chint = chint_pair
    ours = _connect(ours_platform, "opslib")
    theirs = _connect(chint, "chint")
    owners = ours.devices.list()["user_id"].dropna().drop_duplicates().head(3).tolist()
    mine = ours.devices.list(users=owners)
    got = theirs.devices.list(users=owners)
    assert got["device_id"].tolist() == mine["device_id"].tolist()
    assert got["gmt_bind"].equals(mine["gmt_bind"])  # epoch ms on the wire, UTC in frames
    assert "device_secret" not in got.columns  # the chint platform sends it: dropped
    events_mine = ours.events.list("-30d", users=owners)
    events_got = theirs.events.list("-30d", users=owners)
    assert len(events_got) == len(events_mine) > 0
    assert set(events_got["event_id"]) == set(events_mine["event_id"])
    assert set(events_got["event_type_name"].dropna()) <= {
        "property report",
        "fault and system report",
    }
    kinds = analysis.event_kinds(events_got)
    assert not kinds.has_outages
    assert analysis.downtime(events_got).empty
    products = theirs.products.list()
    assert products["product_id"].tolist() == ours.products.list()["product_id"].tolist()
    assert "Wi-Fi" in set(products["net_type_name"].dropna())
    assert (products.loc[products["net_type_name"] == "Wi-Fi", "net_type"] == 0).all()


def test_no_fleet_query_and_errors_in_the_body(
    chint_pair: tuple[PlatformType, PlatformType],
) -> None:
    _, chint = chint_pair
    client = _connect(chint, "chint")
    with pytest.raises(opslib.Unsupported):
        client.events.list("-7d")
    with pytest.raises(opslib.Unsupported):
        client.devices.list()
    with pytest.raises(opslib.NotFound) as info:
        client.devices.get("no-such-device")
    assert info.value.code == 8202
    envelope = {
        "message_id": "m2", "user_id": client.user_id,
        "params": {"user_id": client.user_id, "page_no": 1, "page_size": 101,
                   "access_token": client._session.tokens.access_token()},
    }  # fmt: skip
    answer = httpx.post(f"{chint.base_url}/device/query_by_user", json=envelope).json()
    assert answer["error_code"] == 460


def test_wrong_password_is_8106(chint_pair: tuple[PlatformType, PlatformType]) -> None:
    _, chint = chint_pair
    with pytest.raises(opslib.VerificationFailed) as info:
        _connect(chint, "chint", password="not-the-password")
    assert info.value.code == 8106


def _token(chint: PlatformType, **query: str) -> httpx.Response:
    query = {"client_id": chint.client_id, "client_secret": chint.client_secret, **query}
    return httpx.post(f"{chint.base_url}/token/access", params=query)


def test_token_refusals_are_chints_codes(chint_pair: tuple[PlatformType, PlatformType]) -> None:
    """A code that cannot be exchanged is 100002, a refresh token that is no good 100003, a
    bad client 8109: HTTP 200, flat, with error_description (not our OAuth 400s)."""
    _, chint = chint_pair
    client = _connect(chint, "chint", "user")
    login = {"login_model": 0, "area_code": chint.area_code, "phone": chint.user_phone,
             "password": chint.user_password}  # fmt: skip
    code = client.call("/user/login", login)["code"]
    first = _token(chint, grant_type="authorization_code", code=code, redirect_uri="none")
    assert first.status_code == 200
    assert first.json()["error_code"] == 200
    assert first.json()["access_token"]
    for query, expected in (
        ({"grant_type": "authorization_code", "code": code, "redirect_uri": "none"}, 100002),
        ({"grant_type": "authorization_code", "code": "no-such", "redirect_uri": "none"}, 100002),
        ({"grant_type": "refresh_token", "refresh_token": "no-such-token"}, 100003),
        ({"grant_type": "refresh_token", "refresh_token": "x", "client_secret": "wrong"}, 8109),
        ({"grant_type": "password"}, 460),
    ):
        answer = _token(chint, **query)
        assert answer.status_code == 200, query
        body = answer.json()
        assert body["error_code"] == expected, (query, body)
        assert body["error_description"]
        assert "access_token" not in body
    with pytest.raises(opslib.VerificationFailed) as info:  # the client maps it
        client.auth.exchange_code(code)
    assert info.value.code == 100002
    with pytest.raises(opslib.AuthenticationError) as refused:  # a bad client: 8109
        _connect(chint, "chint", "user", client_secret="not-the-client-secret")
    assert refused.value.code == 8109
    assert client.users.get()["user_id"].item() == client.user_id  # its own tokens still work


def test_conflicts_and_an_unknown_product_on_bind(
    chint_pair: tuple[PlatformType, PlatformType],
) -> None:
    """The reference documents one conflict code (8103, a phone already registered) and
    8110 for an unknown product; every other conflict keeps our 409, never its general
    error 110000."""
    _, chint = chint_pair
    admin = _connect(chint, "chint", "admin")
    user = _connect(chint, "chint", "user")
    product = admin.products.list(1)
    existing = product["product_id"].iloc[0]
    new = {"product_id": existing, "product_secret": "product-secret-1", "product_name": "P",
           "category_id": 1, "net_type": "Wi-Fi", "node_type": "device",
           "vendor_type": "in-house", "encrypt_type": "one secret per product",
           "status": "developing", "popular": "normal"}  # fmt: skip
    with pytest.raises(opslib.Conflict) as info:
        admin.products.add(new)
    assert info.value.code == 409
    mine = admin.devices.list(users=[user.user_id], owned=1, limit=1)
    taken, its_product = mine["device_id"].item(), mine["product_id"].item()
    bind = {"mac_addr": "AA:BB:CC:DD:EE:FF", "sdk_version": "1", "version": "1", "status": 0,
            "category_id": int(mine["category_id"].item())}  # fmt: skip
    other = _connect(chint, "chint", "ops")
    with pytest.raises(opslib.Conflict) as info:  # owned by the user: nothing is written
        other.devices.bind(
            taken, device_secret=demo_device_secret(taken), product_id=its_product, **bind
        )
    assert info.value.code == 409
    with pytest.raises(opslib.NotFound) as info:
        user.devices.bind("dev-edge-1", device_secret="x-secret-x", product_id="p-none", **bind)
    assert info.value.code == 8110
    with pytest.raises(opslib.Conflict) as info:
        other.users.update(identity_id=user.users.get()["identity_id"].item())
    assert info.value.code == 409


def test_product_add_and_delete_answer_the_envelope_and_take_only_chints_codes(
    chint_pair: tuple[PlatformType, PlatformType],
) -> None:
    """Add and delete answer the common envelope with data null (2021, P 228-234,
    263-269), not our bare string; vendor_type and product status have two codes there (P
    179-185, 213-219): any other is a 460 naming the field, and nothing is stored."""
    _, chint = chint_pair
    admin = _connect(chint, "chint", "admin")
    token = admin._session.tokens.access_token()
    good = {"product_id": "p-raw-ok", "product_secret": "product-secret-1",
            "product_name": "Raw", "category_id": 1, "net_type": 0, "node_type": 0,
            "vendor_type": 1, "encrypt_type": 0, "status": 1, "popular": 0}  # fmt: skip
    for path, params in (("/product/add", good), ("/product/delete", {"product_id": "p-raw-ok"})):
        mid = str(uuid.uuid4())
        envelope = {"message_id": mid, "user_id": admin.user_id,
                    "params": {**params, "access_token": token}}  # fmt: skip
        answer = httpx.post(f"{chint.base_url}{path}", json=envelope).json()
        # the 2026 CommonResponse (P components): error_code, message_id, data
        assert answer == {"error_code": 200, "message_id": mid, "data": None}, (path, answer)
    for field, value in (("vendor_type", 5), ("status", 2)):
        params = {"product_id": f"p-raw-{field}", "product_secret": "product-secret-1",
                  "product_name": "Raw", "category_id": 1, "net_type": 0, "node_type": 0,
                  "vendor_type": 0, "encrypt_type": 0, "status": 0, "popular": 0,
                  field: value, "access_token": token}  # fmt: skip
        envelope = {"message_id": str(uuid.uuid4()), "user_id": admin.user_id, "params": params}
        answer = httpx.post(f"{chint.base_url}/product/add", json=envelope).json()
        assert answer["error_code"] == 460, answer
        assert f"params.{field}" in answer["error_description"]
        assert f"p-raw-{field}" not in set(admin.products.list(1)["product_id"])


def test_a_frame_from_either_has_utc_times(chint_pair: tuple[PlatformType, PlatformType]) -> None:
    _, chint = chint_pair
    me = _connect(chint, "chint", "user")
    frame = me.users.get()
    assert str(frame["gmt_register"].dtype) == "datetime64[ns, UTC]"
    assert frame["gmt_register"].notna().all()
    assert isinstance(frame["gmt_register"].iloc[0], pd.Timestamp)


def test_the_probe_finds_chint_and_checks_its_assumed_points(
    chint_pair: tuple[PlatformType, PlatformType],
) -> None:
    _, chint = chint_pair
    creds = chint.credentials("user")  # an account with devices and events
    result = opslib.probe(chint.base_url, **creds)  # no base: found from the login
    assert result.base == "chint"
    found = {f.field: f for f in result.findings}
    for name, value in (
        ("errors.signalling", "body"),  # assumed there: HTTP 200 with the code in the body
        ("paging.total", "records"),  # assumed there
        ("paging.max_page_size", 100),
        ("times.gmt_format", "epoch_ms"),
        ("times.range_unit", "ms"),
        ("capabilities.fleet_refusal", "error"),  # assumed there
        ("token.user_id_field", "user_id"),  # assumed there
    ):
        assert found[name].value == value, found[name]
        assert found[name].confidence == "high", found[name]
    assert 8202 in found["errors.codes"].value
    # "reports the dialect as chint with every assumed point checked"
    assert found["dialect"].value == "chint"  # every finding agrees: nothing to override
    assert result.to_toml("chint").split() == ["[profiles.chint.dialect]", "base", "=", '"chint"']
    from opslib.probing.matching import NOT_OBSERVABLE

    assumed = [
        k
        for k, v in _CHINT.provenance.items()
        if v.startswith("assumed") and not k.startswith(NOT_OBSERVABLE)  # a platform shows
    ]
    assert result.unchecked == []
    for name in assumed:
        assert found[name].confidence in ("high", "medium"), found[name]
    assert found["assumed"].value == f"{len(assumed)} of {len(assumed)} checked"
    assert found["event_kinds"].value == {0: "property", 1: "fault", 2: "fault"}


def test_do_not_disturb_is_epoch_seconds_there_minutes_here(
    chint_pair: tuple[PlatformType, PlatformType],
) -> None:
    import sqlite3

    from opslib.protocol.times import dnd_to_epoch_s

    _, chint = chint_pair
    faults = Faults()
    client = _connect(chint, "chint", transport=faults)
    client.users.update_settings(no_disturbing=True, start="22:30", end="07:15")
    sent = faults.to("/user/update_sys_setting")[-1].body["params"]["message_config"]  # type: ignore[index]
    assert sent["start"] == dnd_to_epoch_s(22 * 60 + 30, "Asia/Shanghai")
    assert sent["end"] == dnd_to_epoch_s(7 * 60 + 15, "Asia/Shanghai")
    with sqlite3.connect(chint.db) as conn:  # the core keeps minutes after midnight
        stored = conn.execute(
            "SELECT dnd_start, dnd_end FROM settings WHERE user_id = ?", (client.user_id,)
        ).fetchone()
    assert stored == (1350, 435)
    wire: list[dict] = []
    faults.rewrite("/user/query_sys_setting", lambda body: wire.append(body) or body)
    read = client.users.settings("message")
    assert wire[-1]["data"]["message_config"]["start"] == sent["start"]  # epoch s on the wire
    assert read["message_config.start"].item() == 1350
    assert read["message_config.end"].item() == 435


def test_a_compressed_answer_is_translated_like_a_plain_one(
    chint_pair: tuple[PlatformType, PlatformType],
) -> None:
    # The edge rewrites the core's answers: it must not pass a compressed one through as is.
    _, chint = chint_pair
    client = _connect(chint, "chint", "user")  # has devices and events
    token = client._session.tokens.access_token()
    answers = {}
    for n, accept in enumerate(("identity", "gzip", "zstd")):
        envelope = {
            "message_id": f"00000000-0000-4000-8000-00000000000{n}", "user_id": client.user_id,
            "params": {"user_id": client.user_id, "query_model": 1, "page_no": 1,
                       "page_size": 100, "start": 1, "end": 4_102_444_800_000,
                       "access_token": token},
        }  # fmt: skip
        answers[accept] = httpx.post(
            f"{chint.base_url}/device/query_record",
            json=envelope,
            headers={"Accept-Encoding": accept},
        )
    assert len(answers["identity"].content) > 1400, answers["identity"].text[:300]
    assert "content-encoding" not in answers["identity"].headers
    assert answers["gzip"].headers["content-encoding"] == "gzip"
    assert answers["zstd"].headers["content-encoding"] == "zstd"
    plain = answers["identity"].json()
    assert plain["error_code"] == 200, plain
    assert answers["gzip"].json()["data"] == plain["data"] == answers["zstd"].json()["data"]
    rows = next(v for v in plain["data"].values() if isinstance(v, list))
    assert rows
    assert isinstance(rows[0]["gmt_create"], int)  # epoch ms: translated


def test_the_vendor_edge_translates_compressed_answers_too(seeded_db: Path, tmp_path: Path) -> None:
    from conftest import ServedPlatform

    db = tmp_path / "vendor.db"
    _copy_db(seeded_db, db)
    url, stop = start_in_thread(db, dialect="vendor")
    try:
        vendor = ServedPlatform(base_url=url, db=db, stop=stop, dialect="vendor", **_demo_fields())
        client = vendor.connect("user")
        token = client._session.tokens.access_token()
        answers = {}
        for n, accept in enumerate(("identity", "zstd")):
            envelope = {
                "message_id": f"00000000-0000-4000-8000-00000000001{n}",
                "user_id": client.user_id,
                "params": {"user_id": client.user_id, "page_no": 1, "page_size": 100,
                           "access_token": token},
            }  # fmt: skip
            answers[accept] = httpx.post(
                f"{url}/device/query_by_user", json=envelope, headers={"Accept-Encoding": accept}
            )
        assert len(answers["identity"].content) > 1400
        assert answers["zstd"].headers["content-encoding"] == "zstd"
        plain = answers["identity"].json()
        assert answers["zstd"].json()["data"] == plain["data"]
        rows = next(v for v in plain["data"].values() if isinstance(v, list))
        assert rows
        times = [v for k, v in rows[0].items() if k.startswith("gmt_") and v]
        assert times
        assert all(str(t).endswith("+08:00") for t in times)  # the vendor's times: translated
    finally:
        stop()


# -- the chint platform's promises, line by line, against `opslib server --dialect chint` --

_ENV = ("OPSLIB_BASE_URL", "OPSLIB_CLIENT_ID", "OPSLIB_CLIENT_SECRET", "OPSLIB_AREA_CODE",
        "OPSLIB_PHONE", "OPSLIB_PASSWORD", "OPSLIB_TOKEN_CACHE", "OPSLIB_DIALECT",
        "OPSLIB_PROFILE")  # fmt: skip


def _by_profile(
    platform: PlatformType,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    role: str = "ops",
    *,
    dialect: str | None = "chint",
) -> opslib.Client:
    """A client from a config-file profile whose only option beyond the account is the
    platform's dialect (no argument, no environment)."""
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)
    lines = [f"[profiles.{role}]", f'base_url = "{platform.base_url}"']
    lines += [f'{key} = "{value}"' for key, value in platform.credentials(role).items()]
    if dialect is not None:
        lines.append(f'dialect = "{dialect}"')
    config = tmp_path / f"config-{role}.toml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    config.chmod(0o600)
    monkeypatch.setenv("OPSLIB_CONFIG", str(config))
    return opslib.connect(profile=role, token_cache=False)


def test_done_login_with_only_the_profiles_dialect(
    chint_pair: tuple[PlatformType, PlatformType],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ "login works" with nothing but ``dialect = "chint"`` in the profile; the same
    profile without it cannot log in (our login_model 1 is an SMS login there)."""
    _, chint = chint_pair
    client = _by_profile(chint, tmp_path, monkeypatch, "user")
    assert client.profile == "user"
    assert client.user_id
    assert client.users.get()["user_id"].item() == client.user_id
    with pytest.raises(opslib.APIError):
        _by_profile(chint, tmp_path, monkeypatch, "user", dialect=None)


def _coded_key(schema: str, column: str) -> str:
    return f"{schema}_status" if column == "status" else column


def _assert_same_records(mine: pd.DataFrame, got: pd.DataFrame, schema: str) -> None:
    """The same rows in the same order with the same values; a coded column may number
    them otherwise, but one of our codes is always one code there, and its label is the
    chint dialect's label of that code (times in UTC: compared as they are)."""
    assert list(got.columns) == list(mine.columns), schema
    assert len(got) == len(mine), schema
    # "no secret appears in any frame": the chint platform sends them, none is kept
    assert not [c for c in got.columns if c.split(".")[-1] in _CHINT.secrets], schema
    cells = got.select_dtypes(include=["object", "string"]).to_numpy().ravel()
    assert not [v for v in cells if "withheld-by-the-reference-platform" in str(v)], schema
    assert got.dtypes.drop([c for c in got.columns if c.endswith("_name")]).equals(
        mine.dtypes.drop([c for c in mine.columns if c.endswith("_name")])
    ), schema
    coded = {c for c in mine.columns if f"{c}_name" in mine.columns}
    coded |= {c for c in ("vendor_type", "popular", "event_type") if c in mine.columns}
    for col in mine.columns:
        if col.endswith("_name") and col[: -len("_name")] in coded:
            continue
        if col == "gmt_last_login":  # each platform's own login moved it
            continue
        if col not in coded:
            pd.testing.assert_series_equal(got[col], mine[col], obj=f"{schema}.{col}")
            continue
        pairs = pd.DataFrame({"ours": mine[col], "theirs": got[col]}).dropna().drop_duplicates()
        assert pairs["ours"].is_unique, (schema, col, pairs)
        assert got[col].isna().equals(mine[col].isna()), (schema, col)
        if f"{col}_name" in got.columns:
            labels = _CHINT.enums[_coded_key(schema, col)]
            expected = got[col].map(
                lambda v, labels=labels: labels.get(int(v)) if pd.notna(v) else None
            )
            assert (
                got[f"{col}_name"].astype(object).where(got[f"{col}_name"].notna(), None).tolist()
                == expected.tolist()
            ), (schema, col)


def test_done_every_read_returns_the_same_records(
    chint_pair: tuple[PlatformType, PlatformType],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ "every client method returns the same records as under our own dialect for the
    same seed (times in UTC, labels from the dialect)": every read, each compared with the
    same read of our platform serving the same database."""
    import dask

    ours_platform, chint = chint_pair
    ours, theirs = _connect(ours_platform, "opslib"), _by_profile(chint, tmp_path, monkeypatch)
    end = pd.Timestamp.now(tz="UTC").floor("h")
    start = end - pd.Timedelta(days=30)
    owners = ours.devices.list()["user_id"].dropna().drop_duplicates().head(3).tolist()
    owner = owners[0]
    device = ours.devices.list(owner, limit=1)["device_id"].item()
    identity = ours.users.get(area_code=chint.area_code, phone=chint.user_phone)["identity_id"]
    identity = identity.item()
    alarms = {ours: "alarm", theirs: "fault and system report"}  # each platform's label
    sent = theirs.devices.get(device, include_secrets=True)  # the platform does send them
    assert sent["device_secret"].item() == "withheld-by-the-reference-platform"
    assert "product_secret" in theirs.products.list(1, include_secrets=True).columns
    reads = [
        ("category", lambda c: c.products.categories()),
        ("product", lambda c: c.products.list()),
        ("product", lambda c: c.products.list(1)),
        ("device", lambda c: c.devices.list(users=owners)),
        ("device", lambda c: c.devices.list(owner, owned=1)),
        ("device", lambda c: c.devices.get(device)),
        ("device", lambda c: pd.concat(list(c.devices.iter_pages(owner, page_size=7)))),
        ("event", lambda c: c.events.list(start, end, users=owners)),
        ("event", lambda c: c.events.list(start, end, device_id=device)),
        ("event", lambda c: c.events.list(start, end, user_id=owner, event_type=alarms[c])),
        (
            "event",
            lambda c: pd.concat(list(c.events.iter_pages(start, end, user_id=owner, page_size=50))),
        ),
        ("user", lambda c: c.users.get()),
        ("user", lambda c: c.users.get(owner)),
        ("user", lambda c: c.users.get(area_code=chint.area_code, phone=chint.user_phone)),
        ("user", lambda c: c.users.get(identity_id=identity)),
    ]
    monkeypatch.setenv("OPSLIB_CACHE_DIR", str(tmp_path / "cache"))
    cached = lambda c: c.events.list(start, end, user_id=owner, cache=True)  # noqa: E731
    reads += [("event", cached), ("event", cached)]  # filled, then read from the cache
    for what, read in reads:
        mine, got = read(ours), read(theirs)
        assert len(mine) > 0, what
        _assert_same_records(mine.reset_index(drop=True), got.reset_index(drop=True), what)
    assert any((tmp_path / "cache").rglob("*")), "the cached reads kept nothing"
    with dask.config.set(scheduler="synchronous"):
        mine = ours.events.to_dask(start, end, user_id=owner).compute()
        got = theirs.events.to_dask(start, end, user_id=owner).compute()
    assert len(mine) > 0
    _assert_same_records(mine.reset_index(drop=True), got.reset_index(drop=True), "event")
    me_ours, me_theirs = _connect(ours_platform, "opslib", "user"), _connect(chint, "chint", "user")
    for which in ("all", "message", "device"):
        _assert_same_records(
            me_ours.users.settings(which), me_theirs.users.settings(which), "settings"
        )


def _result(frame: pd.DataFrame) -> pd.DataFrame:
    """A write's result frame without what each call draws anew (its message_id)."""
    return frame.drop(columns=["message_id"]).reset_index(drop=True)


def _untimed(frame: pd.DataFrame) -> pd.DataFrame:
    """A read-back without the moments of the writes (each platform wrote at its own)."""
    moments = [c for c in frame.columns if c.startswith("gmt_")]
    assert all(str(frame[c].dtype) == "datetime64[ns, UTC]" for c in moments)
    return frame.drop(columns=moments).reset_index(drop=True)


def test_done_every_write_leaves_the_same_records(
    fresh_pair: tuple[PlatformType, PlatformType],
) -> None:
    """The writes, each given in its platform's labels, answer the same results and leave
    the same records: products add/delete, devices bind/update, users update and
    update_settings, and the SMS code, registration and password operations."""
    ours_platform, chint = fresh_pair
    labels = {
        "opslib": {"node_type": "direct", "encrypt_type": "none", "vendor_type": 0,
                   "status": "developing", "popular": "no"},
        "chint": {"node_type": "device", "encrypt_type": "one secret per product",
                  "vendor_type": "in-house", "status": "developing", "popular": "normal"},
    }  # fmt: skip
    bind = {"device_secret": "same-secret-1", "product_id": "p-same-1", "mac_addr":
            "AA:BB:CC:DD:EE:01", "sdk_version": "1.0.0", "version": "1.0.0", "status": 0,
            "category_id": 1}  # fmt: skip
    phone = "5550009901"
    results: dict[str, dict[str, pd.DataFrame]] = {}
    for platform, dialect in ((ours_platform, "opslib"), (chint, "chint")):
        admin = _connect(platform, dialect, "admin")
        user = _connect(platform, dialect, "user")
        anyone = _connect(platform, dialect, "ops")
        got = results[dialect] = {}
        product = {"product_secret": "product-secret-1", "category_id": 1, "net_type": "Wi-Fi"}
        got["add"] = admin.products.add(
            [
                {"product_id": p, "product_name": f"Same {p}", **product, **labels[dialect]}
                for p in ("p-same-1", "p-same-2")
            ]
        )
        got["bind"] = user.devices.bind("dev-same-1", **bind)
        got["update"] = user.devices.update("dev-same-1", group_id=9)
        got["delete"] = admin.products.delete(["p-same-2", "p-same-1"])  # p-same-1: in use
        got["profile"] = user.users.update(nick_name="Same name")
        got["settings"] = user.users.update_settings(no_disturbing=True, start="22:30", end="7:15")
        got["products"] = _untimed(admin.products.list(1))
        got["device"] = _untimed(user.devices.get("dev-same-1"))
        got["user"] = _untimed(user.users.get())
        got["user settings"] = _untimed(user.users.settings())
        got["send_code"] = anyone.auth.send_code("1", phone, code_model="register")
        code = platform.last_code(phone)
        got["register"] = anyone.auth.register("1", phone, "same-password-1", code)
        newcomer = opslib.connect(
            platform.base_url, client_id=platform.client_id,
            client_secret=platform.client_secret, area_code="1", phone=phone,
            password="same-password-1", dialect=dialect, token_cache=False,
        )  # fmt: skip
        got["change"] = newcomer.auth.change_password("same-password-1", "same-password-2")
        got["newcomer"] = _untimed(newcomer.users.get()).drop(columns=["user_id"])
        mine = platform.user_phone  # another phone: one code a minute each
        got["send_code again"] = anyone.auth.send_code("1", mine, code_model="reset password")
        got["reset"] = anyone.auth.reset_password(
            "1", mine, platform.last_code(mine), "same-password-3"
        )
    ours, theirs = results["opslib"], results["chint"]
    for name in ("add", "bind", "update", "delete", "profile", "settings"):
        mine, got = _result(ours[name]), _result(theirs[name])
        if name != "delete":
            assert mine["ok"].all(), (name, mine)
        pd.testing.assert_frame_equal(got, mine, obj=name)  # 409 in use: kept on both
    for name in ("send_code", "register", "send_code again", "reset", "change"):
        mine, got = _result(ours[name]), _result(theirs[name])
        assert mine["ok"].all(), (name, mine)
        assert got["ok"].all(), (name, got)
        assert list(got.columns) == list(mine.columns), name
    assert ours["delete"]["ok"].tolist() == [True, False]
    for name, schema in (("products", "product"), ("device", "device"), ("user", "user"),
                         ("user settings", "settings"), ("newcomer", "user")):  # fmt: skip
        _assert_same_records(ours[name], theirs[name], schema)
    assert "p-same-1" in set(theirs["products"]["product_id"])
    assert theirs["device"]["group_id"].item() == 9
    assert theirs["user settings"]["message_config.start"].item() == 22 * 60 + 30
