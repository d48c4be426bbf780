"""Crash safety of the store: SIGKILL ``opslib sync`` at random moments, run it again.

``opslib sync`` runs as a subprocess against the real platform (served by this process on
loopback) into a store directory. Five times it is killed with SIGKILL a seeded random
time after it starts writing (its state file appears), and between runs a device reports
an event into a day already synced. Afterwards one more sync runs to its end, and the
store holds exactly the platform's rows over the synced range, each once, with no
temporary file left.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from pandas.testing import assert_frame_equal

from opslib.store import Store

from .test_sync import a_device, now_ms, report, stored_rows

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform

KILLS = 5
SEED = 20261126
DAY_MS = 86_400_000


def _env(platform: ServedPlatform, store: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPSLIB_")}
    env.update(
        OPSLIB_BASE_URL=platform.base_url,
        OPSLIB_CLIENT_ID=platform.client_id,
        OPSLIB_CLIENT_SECRET=platform.client_secret,
        OPSLIB_AREA_CODE=platform.area_code,
        OPSLIB_PHONE=platform.ops_phone,
        OPSLIB_PASSWORD=platform.ops_password,
        OPSLIB_STORE=str(store),
        OPSLIB_CONFIG=os.environ["OPSLIB_CONFIG"],
    )
    return env


def _sync(env: dict[str, str], since: str, late: str = "0") -> subprocess.Popen[bytes]:
    # the killed runs read no late window: a day the state claims and no file holds would
    # stay missing instead of being read again
    command = [sys.executable, "-m", "opslib.cli", "sync", "events", "--since", since]
    command += ["--late-window", late]
    return subprocess.Popen(
        [*command, "--no-progress"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )


@pytest.mark.slow
def test_sigkill_at_random_moments_leaves_exactly_the_platform_rows(
    fresh_platform: ServedPlatform, tmp_path: Path
) -> None:
    client = fresh_platform.connect()
    device = a_device(client)
    store = tmp_path / "store"
    env = _env(fresh_platform, store)
    since = "-40d"
    # how long a whole sync writes, measured into a scratch store
    scratch = _env(fresh_platform, tmp_path / "scratch")
    started = time.monotonic()
    probe = _sync(scratch, since)
    while not (tmp_path / "scratch" / "state.json").exists():
        assert probe.poll() is None, probe.stderr.read() if probe.stderr else ""
        time.sleep(0.005)
    writing_from = time.monotonic()
    assert probe.wait(120) == 0
    writing = time.monotonic() - writing_from
    assert writing > 0.2, f"a whole sync wrote for {writing:.2f} s only (started {started})"

    rng = random.Random(SEED)
    killed_while_writing = 0
    for kill in range(KILLS):
        process = _sync(env, since)
        while not (store / "state.json").exists() and process.poll() is None:
            time.sleep(0.002)
        time.sleep(rng.uniform(0.0, writing))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            killed_while_writing += 1
        process.wait(30)
        # a late event into a day the store may already hold
        report(
            fresh_platform,
            device,
            [{"event_type": 3, "ts": now_ms() - DAY_MS, "properties": {"kill": kill}}],
        )
    assert killed_while_writing >= 3
    final = _sync(env, since, late="2d")  # and the late events of the day before
    assert final.wait(120) == 0, final.stderr.read() if final.stderr else ""

    assert not list(store.rglob("*.tmp"))
    st = Store(store)
    query = st.layout.queries["fleet"]
    assert query.since is not None
    assert query.watermark is not None
    expected = client.events.list(query.since, query.watermark)
    assert_frame_equal(st.events(query.since, query.watermark), expected)
    assert stored_rows(store)["event_id"].is_unique
    assert sorted(expected["properties.kill"].dropna().astype(int)) == list(range(KILLS))
