"""client.events.to_dask on the real platform, computed by a LocalCluster of 2 worker processes."""

from __future__ import annotations

import logging
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

import opslib
from opslib.client.frames import schema as S
from opslib.dask import conform, partition_windows

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform

pytest.importorskip("distributed")

DAY = 86_400_000


@pytest.fixture(scope="module")
def dask_cluster(
    platform: ServedPlatform, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Any]:
    """Two worker processes for the module. Their environment names the shared platform
    (for auth="environment"); the token tests do not need it."""
    from distributed import Client, LocalCluster

    home = tmp_path_factory.mktemp("dask-workers")
    env = {
        "OPSLIB_CONFIG": str(home / "no-config.toml"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "OPSLIB_BASE_URL": platform.base_url,
        **{f"OPSLIB_{k.upper()}": v for k, v in platform.credentials("ops").items()},
    }
    with (
        LocalCluster(
            n_workers=2,
            processes=True,
            threads_per_worker=1,
            dashboard_address=None,
            env=env,
            local_directory=str(home / "work"),
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


def _range() -> tuple[int, int]:
    end = time.time_ns() // 1_000_000
    return end - 3 * DAY - 777, end


def test_the_dask_frame_computes_to_the_rows_of_events_list(
    platform: ServedPlatform, dask_cluster: Any
) -> None:
    client = platform.connect()
    start, end = _range()
    expected = client.events.list(start, end)
    ddf = client.events.to_dask(start, end)
    assert ddf.npartitions == len(partition_windows(start, end, "1D")) == 4
    assert ddf.dtypes.to_dict() == expected.dtypes.to_dict()  # declared, before any compute
    assert list(ddf.columns) == list(expected.columns)
    assert_frame_equal(ddf.compute().reset_index(drop=True), expected)
    counts = ddf["event_type_name"].value_counts().compute()
    assert (
        counts.sort_index().to_dict()
        == expected["event_type_name"].value_counts().sort_index().to_dict()
    )


def test_declared_properties_fix_the_columns(platform: ServedPlatform, dask_cluster: Any) -> None:
    client = platform.connect()
    start, end = _range()
    expected = client.events.list(start, end)
    wanted = {"temperature": "Float64", "properties.power": "boolean", "absent": "Int64"}
    ddf = client.events.to_dask(start, end, properties=wanted, partition="12h")
    fixed = list(S.EVENT.dtypes())
    props = ["properties.absent", "properties.power", "properties.temperature"]
    assert list(ddf.columns) == fixed + props
    got = ddf.compute().reset_index(drop=True)
    assert_frame_equal(got[fixed], expected[fixed])
    assert_frame_equal(got[props[1:]], expected[props[1:]])
    assert got["properties.absent"].isna().all()
    assert str(got["properties.absent"].dtype) == "Int64"
    # a column selection is pushed into the partitions' reads
    assert ddf["device_id"].nunique().compute() == expected["device_id"].nunique()
    with pytest.raises(TypeError, match=r"properties\['power'\] = 'yes/no': data type"):
        client.events.to_dask(start, end, properties={"power": "yes/no"})


def test_filters_and_partitions(platform: ServedPlatform, dask_cluster: Any) -> None:
    client = platform.connect()
    start, end = _range()
    device = client.events.list(start, end)["device_id"].mode().iloc[0]
    for query in ({"device_id": device}, {"event_type": "alarm"}):
        expected = client.events.list(start, end, **query)
        ddf = client.events.to_dask(start, end, partition="6h", concurrency=1, **query)
        assert ddf.npartitions == len(partition_windows(start, end, "6h"))
        assert_frame_equal(ddf.compute().reset_index(drop=True), expected)


def test_a_plain_user_reads_its_own(platform: ServedPlatform, dask_cluster: Any) -> None:
    user = platform.connect("user")
    start, end = _range()
    expected = user.events.list(start, end)
    assert len(expected) > 0
    assert_frame_equal(user.events.to_dask(start, end).compute().reset_index(drop=True), expected)


def test_no_password_or_client_secret_travels(platform: ServedPlatform, dask_cluster: Any) -> None:
    import cloudpickle

    client = platform.connect()
    start, end = _range()
    creds = platform.credentials("ops")
    for auth in ("token", "environment"):
        ddf = client.events.to_dask(start, end, auth=auth)
        graph = dict(ddf.__dask_graph__())
        blob = cloudpickle.dumps(graph)
        assert creds["password"].encode() not in blob
        assert creds["client_secret"].encode() not in blob
        token = client._session.tokens.tokens.access_token.get_secret_value()
        assert (token.encode() in blob) is (auth == "token")  # only the short-lived token
        assert token not in repr(graph)
        assert platform.base_url.encode() in blob


def test_workers_may_log_in_from_their_environment(
    platform: ServedPlatform, dask_cluster: Any
) -> None:
    client = platform.connect()
    start, end = _range()
    ddf = client.events.to_dask(start, end, auth="environment")
    assert_frame_equal(ddf.compute().reset_index(drop=True), client.events.list(start, end))


def test_a_revoked_token_says_what_to_do(fresh_platform: ServedPlatform, dask_cluster: Any) -> None:
    creds = fresh_platform.credentials("user")
    client = fresh_platform.connect("user")
    ddf = client.events.to_dask(*_range(), properties={})
    client.auth.change_password(creds["password"], creds["password"] + "-new")  # revokes tokens
    with pytest.raises(opslib.AuthenticationError, match="given to the workers was refused"):
        ddf.compute()


def test_bad_arguments(platform: ServedPlatform) -> None:
    client = platform.connect()
    with pytest.raises(ValueError, match="partition must be a duration"):
        client.events.to_dask("-1d", partition="daily")
    with pytest.raises(ValueError, match="at least 1 s"):
        client.events.to_dask("-1d", partition="10ms")
    with pytest.raises(ValueError, match="auth must be one of"):
        client.events.to_dask("-1d", auth="password")
    with pytest.raises(ValueError, match="page_size"):
        client.events.to_dask("-1d", page_size=0)
    for bad in (0, 33, 2.5, True):
        with pytest.raises(ValueError, match="concurrency must be an integer from 1 to 32"):
            client.events.to_dask("-1d", concurrency=bad)


def test_partition_windows_are_utc_days() -> None:
    assert partition_windows(DAY + 5, 3 * DAY + 7, "1D") == [
        (DAY + 5, 2 * DAY),
        (2 * DAY, 3 * DAY),
        (3 * DAY, 3 * DAY + 7),
    ]


def test_conform_adds_casts_and_drops(caplog: pytest.LogCaptureFixture) -> None:
    meta = pd.DataFrame(
        {
            "a": pd.Series([], dtype="Float64"),
            "b": pd.Series([], dtype="string"),
            "c": pd.Series([], dtype=object),
        }
    )
    df = pd.DataFrame({"a": pd.array([1, None], dtype="Int64"), "x": [1, 2]})
    with caplog.at_level(logging.WARNING, logger="opslib"):
        out = conform(df, meta, where="[here)")
    assert out.dtypes.to_dict() == meta.dtypes.to_dict()
    assert out["a"].tolist()[0] == 1.0
    assert out["b"].isna().all()
    assert out["c"].tolist() == [None, None]
    assert "dropping ['x']" in caplog.text
    with pytest.raises(TypeError, match=r"column 'a'.*properties=\{'a': 'object'\}"):
        conform(pd.DataFrame({"a": ["text"]}), meta, where="[here)")


def test_conform_keeps_fitting_columns_without_copying_them() -> None:
    meta = pd.DataFrame({"a": pd.Series([], dtype="Int64"), "s": pd.Series([], dtype="string")})
    df = pd.DataFrame({"a": pd.array([1, None, 3], dtype="Int64"), "s": ["x", None, "z"]})
    df["s"] = df["s"].astype("string")
    out = conform(df, meta)
    assert np.shares_memory(out["a"].array._data, df["a"].array._data)
    out.loc[0, "a"] = 7  # copy-on-write: the partition it came from is untouched
    assert df["a"].tolist()[0] == 1
    assert out["a"].tolist()[0] == 7


def test_import_opslib_starts_no_dask(tmp_path: Path) -> None:
    code = (
        "import sys, opslib, opslib.client.resources.events, opslib.cli\n"
        "assert 'dask' not in sys.modules and 'distributed' not in sys.modules\n"
        "import threading; print(threading.active_count())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert out.stdout.strip() == "1"  # no cluster, no thread


def test_a_window_is_read_with_the_token_alone_through_the_pager(
    platform: ServedPlatform, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker reads its window as ``Client.from_token`` would: no login, no refresh, the
    caller's token in every request, its pages through the one pager (a 503 on page 3 is
    retried by the regular call), and the rows of ``events.list``."""
    from client.faults import Faults

    from opslib.client import _event_dask
    from opslib.client._session import Session

    client = platform.connect()
    start, end = _range()
    token = client._session.tokens.access_token()
    faults = Faults()
    faults.status("/device/query_record", 503, when=lambda s: s.body["params"]["page_no"] == 3)
    reader = _event_dask.WindowReader(
        base_url=platform.base_url,
        client_id=platform.client_id,
        user_id=client.user_id or "",
        query=(("query_model", 3),),
        access_token=opslib.Secret(token),
        expires_at=time.time() + 600,
        page_size=20,
    )
    worker = Session.from_token(
        platform.base_url,
        access_token=token,
        client_id=platform.client_id,
        user_id=client.user_id or "",
        transport=faults,
    )
    monkeypatch.setattr(_event_dask.WindowReader, "_open", lambda self: worker)
    assert_frame_equal(reader(start, end), client.events.list(start, end))
    assert set(faults.paths()) == {"/device/query_record"}  # no login, no refresh
    sent = faults.to("/device/query_record")
    assert {s.body["params"]["access_token"] for s in sent} == {token}
    third = [s for s in sent if s.body["params"]["page_no"] == 3]
    assert [s.fault for s in third] == ["status 503", ""]


def test_frames_carry_the_platforms_event_kinds_under_chint(
    seeded_db: Path, tmp_path: Path
) -> None:
    import sqlite3

    import dask
    from conftest import ServedPlatform as Running
    from conftest import _copy_db, _demo_fields

    from opslib import analysis
    from opslib.dialects import Dialect
    from opslib.server.runner import start_in_thread
    from opslib.server.seed.dialect import fold_onto_dialect

    db = tmp_path / "chint.db"
    _copy_db(seeded_db, db)
    fold_onto_dialect(db, Dialect.named("chint"))
    url, stop = start_in_thread(db, dialect="chint")
    try:
        client = Running(base_url=url, db=db, stop=stop, **_demo_fields()).connect(
            "ops", dialect="chint"
        )
        start, end = _range()
        with sqlite3.connect(db) as conn:  # the user with the most faults in the range
            owner = conn.execute(
                "SELECT user_id FROM events WHERE user_id != '' AND event_type = 4"
                " AND ts >= ? AND ts < ? GROUP BY 1 ORDER BY count(*) DESC LIMIT 1",
                (start, end),
            ).fetchone()[0]
        listed = client.events.list(start, end, user_id=owner)
        ddf = client.events.to_dask(start, end, user_id=owner, properties={})
        assert analysis.event_kinds(ddf) == analysis.event_kinds(listed)
        assert not analysis.event_kinds(ddf).reports("connectivity")
        with dask.config.set(scheduler="synchronous"):
            got = ddf.compute()
            first = ddf.partitions[0].compute()
        for frame in (got, first):
            assert frame.attrs["event_kinds"] == listed.attrs["event_kinds"]
        assert analysis.event_kinds(got).reports("fault")
    finally:
        stop()
