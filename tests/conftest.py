"""Root fixtures: an isolated environment for every test, and real platforms to test against.

- ``_isolated_env`` (autouse): no test sees the user's config, cache or OPSLIB_* variables;
  the config file, the XDG dirs, the token cache and the embedded database all live in tmp.
- ``platform`` (session): the reference platform over a seeded small database, served on
  127.0.0.1 in a thread. Shared: tests must not change what others read (use fresh ones).
- ``platform_factory`` / ``fresh_platform`` (function): a platform of its own over a copy of
  the same seeded database, optionally with other server settings (short token lifetimes).
- ``report_run`` (session): ``report_run(report, parameters, label=...)`` is the
  :class:`~opslib.reports.RunResult` of that report run against the shared ``platform``,
  made once per pytest run however many xdist workers ask (the first runs it, the others
  wait for it and read it). A test that reads a report's HTML, exports or notebook takes
  this rather than a run of its own; ``report_runs`` is every report of
  ``tests/reports/runs.py`` in both modes, by ``(report, mode)``, each made when a test
  first reads it. A test that changes the platform, or checks how a run itself goes (exit
  status, timeout, lock), runs its own with ``run_report``.
- ``run_once`` (session): the tool under ``report_run``. ``run_once(key, build)`` calls
  ``build(directory)`` in one worker only, under a file lock, and returns the directory
  (common to all workers of the run) for every caller; ``build`` must write everything
  the callers read into it. A build that raises is tried again by the next caller.
"""

from __future__ import annotations

import collections
import os
import shutil
import sqlite3
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pytest

SEED_SCALE = "small"
DONE = ".built"  # in a run_once directory: its build finished


@dataclass
class ServedPlatform:
    """A running reference platform and the demo credentials of its seed."""

    base_url: str
    db: Path
    stop: Callable[[], None] = field(repr=False)
    client_id: str = ""
    client_secret: str = field(default="", repr=False)
    area_code: str = ""
    ops_phone: str = ""
    ops_password: str = field(default="", repr=False)
    admin_phone: str = ""
    admin_password: str = field(default="", repr=False)
    user_phone: str = ""
    user_password: str = field(default="", repr=False)
    dialect: str | None = None  # the dialect the platform speaks (None: the reference one)

    @property
    def outbox(self) -> Path:
        """The SMS gateway's file: one JSON line per message sent."""
        return Path(f"{self.db}.sms.jsonl")

    def sms(self, phone: str | None = None) -> list[dict[str, Any]]:
        """Messages in the outbox, oldest first, optionally for one phone."""
        if not self.outbox.exists():
            return []
        lines = self.outbox.read_bytes().splitlines()
        messages = [orjson.loads(line) for line in lines if line.strip()]
        return [m for m in messages if phone is None or m.get("phone") == phone]

    def last_code(self, phone: str) -> str:
        """The latest SMS code sent to ``phone``."""
        messages = self.sms(phone)
        assert messages, f"no SMS was sent to {phone}"
        return str(messages[-1]["code"])

    def credentials(self, role: str = "ops") -> dict[str, str]:
        """connect() keyword arguments for the demo account of ``role``."""
        phone, password = {
            "ops": (self.ops_phone, self.ops_password),
            "admin": (self.admin_phone, self.admin_password),
            "user": (self.user_phone, self.user_password),
        }[role]
        return {
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "area_code": self.area_code,
            "phone": phone,
            "password": password,
        }

    def code(self, status: int) -> int:
        """The platform's error_code for a failure the reference platform signals with
        ``status`` (its dialect's first code for the same exception class)."""
        if self.dialect is None:
            return status
        from opslib.dialects import Dialect

        name = Dialect().errors.codes[status]
        codes = Dialect.named(self.dialect).errors.codes
        return next(code for code, cls in codes.items() if cls == name)

    def connect(self, role: str = "ops", **kwargs: Any) -> Any:
        """An ``opslib.Client`` logged in as the demo account of ``role`` (in the platform's
        dialect)."""
        import opslib

        if self.dialect is not None:
            kwargs.setdefault("dialect", self.dialect)
        return opslib.connect(self.base_url, **{**self.credentials(role), **kwargs})


def _demo_fields() -> dict[str, str]:
    from opslib.server import demo

    return {
        "client_id": demo.CLIENT_ID,
        "client_secret": demo.CLIENT_SECRET,
        "area_code": demo.AREA_CODE,
        "ops_phone": demo.OPS_PHONE,
        "ops_password": demo.OPS_PASSWORD,
        "admin_phone": demo.ADMIN_PHONE,
        "admin_password": demo.ADMIN_PASSWORD,
        "user_phone": demo.USER_PHONE,
        "user_password": demo.USER_PASSWORD,
    }


def _copy_db(src: Path, dst: Path) -> None:
    """Copy a SQLite database consistently (WAL included) with the backup API."""
    source, target = sqlite3.connect(src), sqlite3.connect(dst)
    try:
        source.backup(target)
    finally:
        source.close()
        target.close()


@pytest.fixture(autouse=True)
def _isolated_env(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Keep every test away from the user's config, cache, tokens and OPSLIB_* variables."""
    for name in list(os.environ):
        if name.startswith("OPSLIB_"):
            monkeypatch.delenv(name)
    home = tmp_path / "home"
    monkeypatch.setenv("OPSLIB_CONFIG", str(home / "opslib-config.toml"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    # connect() with nothing configured starts the embedded platform: keep it small and
    # shared by the whole session (one embedded platform per process anyway).
    embedded = tmp_path_factory.getbasetemp() / "embedded"
    monkeypatch.setenv("OPSLIB_EMBEDDED_DB", str(embedded / "demo.db"))
    monkeypatch.setenv("OPSLIB_EMBEDDED_SCALE", SEED_SCALE)


def run_directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temporary directory of this pytest run, common to its xdist workers (each
    worker's own is a folder of it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def run_once(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path | None]:
    """``run_once(key, build, wait=True) -> directory``: ``build(directory)`` once per
    pytest run.

    The first worker to ask builds under a file lock; the others wait for the lock, then
    find the directory built. With ``wait=False`` a worker that finds another one building
    gets None at once (it may build something else meanwhile). ``key`` names the directory
    (letters, digits, ``-_.``).
    """
    from filelock import FileLock, Timeout

    root = run_directory(tmp_path_factory) / "once"
    root.mkdir(exist_ok=True)

    def once(key: str, build: Callable[[Path], object], wait: bool = True) -> Path | None:
        directory = root / key
        try:
            lock = FileLock(root / f"{key}.lock", timeout=-1 if wait else 0).acquire()
        except Timeout:
            return None
        with lock:
            if not (directory / DONE).exists():
                shutil.rmtree(directory, ignore_errors=True)  # what a failed build left
                directory.mkdir()
                build(directory)
                (directory / DONE).touch()
        return directory

    return once


@pytest.fixture(scope="session")
def seeded_db(run_once: Callable[..., Path]) -> Path:
    """A database seeded once per pytest run (small scale); never served, only copied.

    Its accounts' password hashes are argon2id at the cheapest parameters
    (tests/cheap_passwords.py): logins verify in microseconds, not 0.16 s of CPU each.
    """
    from cheap_passwords import cheapen

    from opslib.server import demo
    from opslib.server.seed import seed_database

    def build(directory: Path) -> None:
        seed_database(directory / "template.db", scale=SEED_SCALE)
        passwords = (demo.OPS_PASSWORD, demo.ADMIN_PASSWORD, demo.SEEDED_USER_PASSWORD)
        assert cheapen(directory / "template.db", (*passwords, demo.USER_PASSWORD))

    built = run_once("seeded-db", build)
    assert built is not None  # it waits
    return built / "template.db"


def _start(db: Path, settings: Any = None, dialect: str | None = None) -> ServedPlatform:
    from opslib.server.runner import start_in_thread

    base_url, stop = start_in_thread(db, settings=settings, dialect=dialect)
    return ServedPlatform(
        base_url=base_url.rstrip("/"), db=db, stop=stop, dialect=dialect, **_demo_fields()
    )


@pytest.fixture(scope="session")
def platform(seeded_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServedPlatform]:
    """The shared platform (session scope) over a copy of the seeded database."""
    db = tmp_path_factory.mktemp("platform") / "platform.db"
    _copy_db(seeded_db, db)
    running = _start(db)
    yield running
    running.stop()


@pytest.fixture(scope="session")
def report_run(
    run_once: Callable[..., Path],
    platform: ServedPlatform,
    tmp_path_factory: pytest.TempPathFactory,
) -> Callable[..., Any]:
    """``report_run(report, parameters=None, label="", out="report-runs") -> RunResult``:
    that report run against the shared platform (its ops account) once per pytest run
    (``wait=False``: None at once while another worker makes it).

    Runs of one ``out`` share a directory of the run's tmp (one index, one plotly.js); the
    default one holds ``report_runs``, whose index a browser test counts: name another
    ``out`` for runs of other parameters.
    """
    from reports.runs import shared_run

    def run(
        report: str,
        parameters: Mapping[str, Any] | None = None,
        label: str = "",
        out: str = "report-runs",
        wait: bool = True,
    ) -> Any:
        directory = run_directory(tmp_path_factory) / out
        return shared_run(run_once, platform, directory, report, parameters, label, wait)

    return run


@pytest.fixture(scope="session")
def report_runs(report_run: Callable[..., Any]) -> Mapping[tuple[str, str], Any]:
    """Every report of tests/reports/runs.py in both modes, by (report, mode): ``report_run``
    with ``runs.parameters(report, mode)`` and the mode as label, each made on first use."""
    from reports.runs import EveryReport

    return EveryReport(
        lambda report, params, mode, wait: report_run(report, params, mode, wait=wait)
    )


@pytest.fixture
def platform_dialect() -> str | None:
    """The dialect ``platform_factory`` platforms speak (tests/client/resources: both)."""
    return None


@pytest.fixture
def platform_factory(
    seeded_db: Path, tmp_path: Path, platform_dialect: str | None
) -> Iterator[Callable[..., ServedPlatform]]:
    """Start platforms of the test's own: ``platform_factory(**server_settings)``.

    Keyword arguments replace fields of ``opslib.server.config.Settings`` (e.g.
    ``access_token_ttl_s=2``); ``dialect=`` names the dialect it speaks (default
    ``platform_dialect``). Each platform serves its own copy of the seeded database.
    """
    started: list[ServedPlatform] = []

    def make(dialect: str | None = None, **settings: Any) -> ServedPlatform:
        server_settings = None
        if settings:
            from opslib.server.config import Settings

            server_settings = Settings(**settings)
        db = tmp_path / f"platform-{len(started)}.db"
        _copy_db(seeded_db, db)
        running = _start(db, server_settings, dialect or platform_dialect)
        started.append(running)
        return running

    yield make
    for running in started:
        running.stop()


@pytest.fixture
def fresh_platform(platform_factory: Callable[..., ServedPlatform]) -> ServedPlatform:
    """A platform of this test's own, with the default settings."""
    return platform_factory()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """One node id per test. Under pytest 9.2 every operation of Schemathesis's
    ``@schema.parametrize`` gets the test function's bare id, and pytest-xdist (``make
    test``) schedules by node id, so it would run one operation of the 19. The operation's
    label is put back as the id's parameters (tests/test_collection.py checks); any other
    id collected twice stops the run, naming it."""
    for item in items:
        label = getattr(item, "operation_label", None)
        if label and not item.nodeid.endswith("]"):
            if hasattr(item, "_id"):  # pytest >= 9.2 keeps the id as a NodeId
                item._id = item._id.with_params(label)
            else:
                item._nodeid = f"{item.nodeid}[{label}]"
    counts = collections.Counter(item.nodeid for item in items)
    twice = sorted(nodeid for nodeid, n in counts.items() if n > 1)
    if twice:
        raise pytest.UsageError(f"collected twice under one node id (xdist runs one): {twice}")
