"""``opslib probe`` against the reference platform in each dialect it speaks: it finds the
dialect, says how sure it is, writes a section that connects, and never writes."""

from __future__ import annotations

import socket
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import opslib
from opslib.cli import main
from opslib.probing.matching import NOT_OBSERVABLE

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform


def _rows(db: object) -> dict[str, int]:
    import sqlite3

    conn = sqlite3.connect(str(db))
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}
    finally:
        conn.close()


# chint (its own demo data, an account with devices) is found in a process, below.
@pytest.mark.parametrize("dialect", sorted(set(opslib.Dialect.names()) - {"chint"}))
def test_the_probe_finds_each_dialect_with_reads_only(
    platform_factory: Callable[..., ServedPlatform], dialect: str
) -> None:
    platform = platform_factory(dialect=None if dialect == "opslib" else dialect)
    creds = platform.credentials("ops")
    before = _rows(platform.db)
    result = opslib.probe(platform.base_url, **creds)
    assert result.base == dialect
    assert result.dialect == opslib.Dialect.named(dialect)
    assert {f.confidence for f in result.findings} <= {"high", "medium", "low"}
    found = {f.field: f for f in result.findings}
    assert found["dialect"].value == dialect
    assert found["times.range_unit"].confidence == "high"
    # paste, run: the section connects and reads what the platform holds
    section = tomllib.loads(result.to_toml("plant"))["profiles"]["plant"]["dialect"]
    client = opslib.connect(platform.base_url, dialect=section, **creds)
    assert len(client.events.list("-30d")) == client.events.list("-30d").attrs["total"] > 100
    after = _rows(platform.db)
    # a login writes its own bookkeeping (codes, tokens, gmt_last_login); nothing else moves
    moved = {t for t in before if before[t] != after.get(t)}
    assert moved <= {"auth_codes", "tokens", "token_families", "login_failures"}, moved


def test_the_probe_learns_an_unknown_platform_field_by_field(
    platform_factory: Callable[..., ServedPlatform],
) -> None:
    platform = platform_factory(dialect="vendor")
    result = opslib.probe(platform.base_url, **platform.credentials("ops"))
    found = {f.field: f for f in result.findings}
    assert found["token.params"].value == "query"
    assert found["errors.signalling"].value == "body"
    assert found["errors.message_fields"].value[0] == "msg"
    assert found["times.gmt_format"].value == "iso"
    assert found["times.range_unit"].value == "s"
    assert found["paging.max_page_size"].value == 100
    assert found["paging.total"].value == "pages"
    assert found["token.expires_in_unit"].value == "ms"
    assert found["errors.token_refused_codes"].value == {10012}


def test_opslib_probe_prints_the_findings_and_the_section(
    platform_factory: Callable[..., ServedPlatform],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: object,
) -> None:
    platform = platform_factory(dialect="vendor")
    creds = platform.credentials("ops")
    monkeypatch.setenv("OPSLIB_PASSWORD", creds["password"])
    out = f"{tmp_path}/dialect.toml"
    code = main(
        [
            "probe",
            platform.base_url,
            "--client-id",
            creds["client_id"],
            "--client-secret",
            creds["client_secret"],
            "--area-code",
            creds["area_code"],
            "--phone",
            creds["phone"],
            "--profile",
            "plant",
            "--out",
            out,
        ]
    )
    text = capsys.readouterr().out
    assert code == 0
    assert "[  high] times.range_unit = 's'" in text
    assert '[profiles.plant.dialect]\nbase = "vendor"' in text
    assert creds["password"] not in text
    assert creds["client_secret"] not in text
    with open(out, "rb") as handle:
        assert tomllib.load(handle)["profiles"]["plant"]["dialect"] == {"base": "vendor"}


def test_a_failed_login_is_a_clear_error(platform: ServedPlatform) -> None:
    creds = {**platform.credentials("ops"), "password": "not-the-password"}
    with pytest.raises(opslib.OpsError, match="probe: the login failed"):
        opslib.probe(platform.base_url, **creds)


def test_opslib_server_dialect_vendor_in_a_process_is_found(
    seeded_db: Path, tmp_path: Path
) -> None:
    from conftest import _copy_db, _demo_fields
    from reliability.wire import ServerProcess

    db = tmp_path / "vendor.db"
    _copy_db(seeded_db, db)
    server = ServerProcess(db, tmp_path / "server.log", dialect="vendor")
    server.start()
    try:
        demo = _demo_fields()
        creds = {
            "client_id": demo["client_id"],
            "client_secret": demo["client_secret"],
            "area_code": demo["area_code"],
            "phone": demo["ops_phone"],
            "password": demo["ops_password"],
        }
        result = opslib.probe(server.base_url, **creds)
        assert result.base == "vendor"
        client = opslib.connect(server.base_url, dialect=result.dialect, **creds)
        assert len(client.devices.list()) == client.devices.list().attrs["total"] > 0
    finally:
        server.stop()
    assert "dialect vendor" in server.tail()


def test_opslib_probe_names_chint_and_checks_its_assumed_points_in_a_process(
    seeded_db: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Against ``opslib server --dialect chint`` (a process), ``opslib probe``
    reports the dialect as chint with every assumed point checked, and a profile whose only
    option is ``dialect = "chint"`` logs in and reads."""
    from conftest import _copy_db, _demo_fields
    from reliability.wire import ServerProcess

    from opslib.dialects import Dialect
    from opslib.server.seed.dialect import fold_onto_dialect

    db = tmp_path / "chint.db"
    _copy_db(seeded_db, db)
    fold_onto_dialect(db, Dialect.named("chint"))
    server = ServerProcess(db, tmp_path / "server.log", dialect="chint")
    server.start()
    try:
        demo = _demo_fields()
        creds = {
            "client_id": demo["client_id"],
            "client_secret": demo["client_secret"],
            "area_code": demo["area_code"],
            "phone": demo["user_phone"],  # an account with devices and events
            "password": demo["user_password"],
        }
        monkeypatch.setenv("OPSLIB_PASSWORD", creds["password"])
        flags = ["--client-id", creds["client_id"], "--client-secret", creds["client_secret"],
                 "--area-code", creds["area_code"], "--phone", creds["phone"]]  # fmt: skip
        code = main(["probe", server.base_url, *flags, "--profile", "cloud"])
        text = capsys.readouterr().out
        assert code == 0
        assert "[  high] dialect = 'chint': every finding agrees" in text
        assumed = [
            k
            for k, v in opslib.Dialect.named("chint").provenance.items()
            if v.startswith("assumed") and not k.startswith(NOT_OBSERVABLE)
        ]
        assert f"[  high] assumed = '{len(assumed)} of {len(assumed)} checked'" in text
        assert "not checked" not in text
        # event_type 2 is no filter there (its reference allows 0 and 1): never sent as one
        assert "not a filter there: [2]" in text
        assert text.rstrip().endswith('[profiles.cloud.dialect]\nbase = "chint"')
        assert creds["password"] not in text
        assert creds["client_secret"] not in text
        config = tmp_path / "config.toml"
        lines = ["[profiles.cloud]", f'base_url = "{server.base_url}"', 'dialect = "chint"']
        lines += [f'{k} = "{v}"' for k, v in creds.items()]
        config.write_text("\n".join(lines) + "\n", encoding="utf-8")
        for name in ("OPSLIB_PASSWORD", "OPSLIB_DIALECT", "OPSLIB_BASE_URL", "OPSLIB_PROFILE"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("OPSLIB_CONFIG", str(config))
        client = opslib.connect(profile="cloud", token_cache=False)
        devices = client.devices.list(client.user_id)
        assert len(devices) == devices.attrs["total"] > 0
        assert "device_secret" not in devices.columns
    finally:
        server.stop()


def test_opslib_probe_says_what_is_missing_and_which_platform_it_cannot_reach(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for env in ("OPSLIB_CLIENT_ID", "OPSLIB_CLIENT_SECRET", "OPSLIB_AREA_CODE", "OPSLIB_PHONE"):
        monkeypatch.delenv(env, raising=False)
    monkeypatch.setenv("OPSLIB_PASSWORD", "pw")
    assert main(["probe", "http://127.0.0.1:9", "--client-id", "c", "--phone", "5"]) == 2
    assert capsys.readouterr().err == (
        "opslib probe: no client_secret, area_code; give --client-secret or "
        "OPSLIB_CLIENT_SECRET; --area-code or OPSLIB_AREA_CODE\n"
    )
    flags = ["--client-id", "c", "--client-secret", "s", "--area-code", "1", "--phone", "5"]
    with socket.socket() as free:  # a port nothing listens on
        free.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{free.getsockname()[1]}"
    assert main(["probe", url, *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"opslib probe: cannot reach the platform at {url}: ConnectError: "), err
    assert main(["probe", "ops.example.com", *flags]) == 2
    assert capsys.readouterr().err.startswith(
        "opslib probe: cannot reach the platform at ops.example.com: UnsupportedProtocol: "
    )
    # refused before the probe, not after a minute of it
    assert main(["probe", url, *flags, "--out", "/nonexistent-dir/section.toml"]) == 2
    assert capsys.readouterr().err == (
        "opslib probe: --out /nonexistent-dir/section.toml is in /nonexistent-dir, which does "
        "not exist; nothing was probed\n"
    )
