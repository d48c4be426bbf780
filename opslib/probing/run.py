"""``opslib.probe`` and ``opslib probe``: the steps in order, from each base dialect whose
login fits, and the command's output."""

from __future__ import annotations

from typing import Any

import httpx

from opslib.dialects import Dialect
from opslib.exceptions import ConfigError, OpsError
from opslib.probing.errors import errors
from opslib.probing.fleet import event_kinds, fleet_check
from opslib.probing.login import LoginRefused, token_call
from opslib.probing.matching import conclude
from opslib.probing.paging import paging
from opslib.probing.result import ProbeResult
from opslib.probing.state import Probe
from opslib.probing.times import gmt_format, range_unit
from opslib.probing.wire import Wire

__all__ = ["probe", "probe_command"]

# The steps, in order: each reads what the ones before learned.
STEPS = (token_call, fleet_check, errors, gmt_format, range_unit, paging, event_kinds)


def _run(probe: Probe) -> Dialect:
    for step in STEPS:
        step(probe)
    return conclude(probe)


def _login_bases() -> list[Dialect]:
    """The reference dialect, then one built-in per other ``login_model`` password value."""
    bases = [Dialect.named("opslib")]
    wanted = "password"
    for name in Dialect.names():
        candidate = Dialect.named(name)
        number = candidate.selectors.get("login_model", {}).get(wanted)
        if all(b.selectors.get("login_model", {}).get(wanted) != number for b in bases):
            bases.append(candidate)
    return bases


def probe(
    base_url: str,
    *,
    client_id: str,
    client_secret: str,
    area_code: str,
    phone: str,
    password: str,
    base: str | Dialect | None = None,
    timeout: float = 30.0,
) -> ProbeResult:
    """Learn a platform's dialect with reads only (see :mod:`opslib.probing`).

    Parameters
    ----------
    base_url
        The platform.
    client_id, client_secret, area_code, phone, password
        An application and an account to log in with (an ops account learns more: the
        fleet read).
    base
        The dialect the probe starts from and keeps where it cannot tell; its
        ``login_model`` selector is used to log in. Default: ``"opslib"``, and when that
        login is refused, each built-in dialect whose password login is another integer
        (``"chint"``: 0) in turn.
    timeout
        Seconds per request.

    Returns
    -------
    ProbeResult
        ``.dialect`` for ``connect(dialect=...)``, ``.findings`` with their confidence,
        ``.to_toml(profile)`` and ``.report()``.

    Raises
    ------
    opslib.ConfigError
        A credential missing.
    opslib.OpsError
        The login or the token call failed under every base dialect tried.

    Examples
    --------
    >>> result = opslib.probe("http://127.0.0.1:8000", client_id="opslib-demo",
    ...     client_secret="...", area_code="1", phone="5550000001",
    ...     password="...")  # doctest: +SKIP
    >>> result.dialect.paging.max_page_size  # doctest: +SKIP
    100
    """
    if base is None:
        bases = _login_bases()
    else:
        bases = [Dialect.named(base) if isinstance(base, str) else base]
    for name, value in (
        ("client_id", client_id),
        ("client_secret", client_secret),
        ("area_code", area_code),
        ("phone", phone),
        ("password", password),
    ):
        if not value:
            raise ConfigError(f"probe needs {name}")
    credentials = {
        "client_secret": client_secret,
        "area_code": area_code,
        "phone": phone,
        "password": password,
    }
    wire = Wire(base_url, client_id, timeout)
    try:
        for number, start in enumerate(bases, 1):
            run = Probe(wire, start, credentials)
            try:
                dialect = _run(run)
                break
            except LoginRefused:
                if number == len(bases):
                    raise
    finally:
        wire.close()
    name = run.matched or (start.name if not isinstance(base, Dialect) else "opslib")
    return ProbeResult(
        base_url=base_url,
        dialect=dialect,
        findings=run.findings,
        base=name,
        unchecked=run.unchecked,
    )


# The credentials a probe logs in with → the variable each comes from when not given.
_CREDENTIALS = {
    "client_id": "OPSLIB_CLIENT_ID",
    "client_secret": "OPSLIB_CLIENT_SECRET",
    "area_code": "OPSLIB_AREA_CODE",
    "phone": "OPSLIB_PHONE",
    "password": "OPSLIB_PASSWORD",
}


def probe_command(args: Any) -> int:
    """``opslib probe``: the findings and the section on stdout; exit 2 when it fails."""
    import getpass
    import os
    import sys
    from pathlib import Path

    def value(name: str, env: str) -> str:
        return str(getattr(args, name) or os.environ.get(env) or "")

    given = {name: value(name, env) for name, env in _CREDENTIALS.items()}
    if not given["password"] and sys.stdin.isatty():
        given["password"] = getpass.getpass("password: ")
    missing = [name for name, text in given.items() if not text]
    if missing:
        how = "; ".join(f"--{n.replace('_', '-')} or {_CREDENTIALS[n]}" for n in missing)
        print(f"opslib probe: no {', '.join(missing)}; give {how}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else None
    if out is not None and (out.is_dir() or not out.resolve().parent.is_dir()):
        why = "a directory" if out.is_dir() else f"in {out.resolve().parent}, which does not exist"
        print(f"opslib probe: --out {args.out} is {why}; nothing was probed", file=sys.stderr)
        return 2
    try:
        result = probe(
            args.base_url,
            client_id=given["client_id"],
            client_secret=given["client_secret"],
            area_code=given["area_code"],
            phone=given["phone"],
            password=given["password"],
            base=args.base,
        )
    except OpsError as exc:
        print(f"opslib probe: {exc}", file=sys.stderr)
        return 2
    except httpx.HTTPError as exc:
        print(
            f"opslib probe: cannot reach the platform at {args.base_url}: "
            f"{type(exc).__name__}: {exc}",
            file=sys.stderr,
        )
        return 2
    print(result.report(args.profile), end="")
    if args.out:
        try:
            Path(args.out).write_text(result.to_toml(args.profile), encoding="utf-8")
        except OSError as exc:
            print(f"opslib probe: cannot write {args.out}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        print(f"\nwritten to {args.out}")
    return 0
