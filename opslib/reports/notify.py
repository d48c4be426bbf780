"""Tell someone how a run went: one message per ``report run`` or ``run-all``, via Apprise.

Configured once in the config file (``~/.config/opslib/config.toml``, ``OPSLIB_CONFIG``),
globally or per profile (a profile's keys override the global ones), and on the command
line (``--notify URL``, added to the configured targets; ``--notify-when``)::

    [notify]
    when = "failure"    # failure (default) | partial | always
    urls = ["mailtos://ops:PASSWORD@smtp.example.com?to=oncall@example.com",
            "json://hooks.example.com/opslib"]

    [profiles.prod.notify]
    when = "partial"

Each URL is one `Apprise`_ target (e-mail over SMTP, Slack, Teams, Matrix, generic JSON
webhooks, ...). ``failure`` sends when a report failed, timed out or was skipped, or when
nothing could run; ``partial`` also when a report was partial; ``always`` after every run.

The message's first line (the e-mail subject, the webhook's ``title``) names the reports
that did not succeed and why (the one-sentence ``reason`` of status.json); the body names
the platform, the account, the run (command, host, start) and each report's outcome,
cause, duration and HTML path. E-mails carry the HTML of the reports that did not succeed
(all of them when every report is ok), each with plotly.js inside it so that its charts
draw wherever it is opened (about 5 MB a report with charts), up to :data:`ATTACH_LIMIT`
bytes in all; the others are named with why they were left out. No secret
is ever sent: the text is scrubbed of every secret value the runner knows (the profile's
and the environment's), and an HTML that holds one is not attached.

A target that cannot be reached is logged and counted in each run's status.json
(``notify``); it never changes a run's outcome or exit status.

.. _Apprise: https://github.com/caronc/apprise
"""

from __future__ import annotations

import os
import socket
import tempfile
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from opslib.reports.causes import Cause
from opslib.reports.changes import when_text
from opslib.reports.platform import Platform
from opslib.reports.status import SECRET_NAME, RunResult, write_status

__all__ = [
    "ATTACH_LIMIT",
    "WHEN",
    "Delivery",
    "NotifyConfigError",
    "NotifySettings",
    "compose",
    "deliver",
    "known_secrets",
    "notify_settings",
    "record_deliveries",
    "run_name",
    "send",
    "summary",
]

WHEN = ("failure", "partial", "always")
# Bytes of HTML one e-mail carries: under the 10-25 MB most mail servers accept.
ATTACH_LIMIT = 8 * 2**20
_EMAIL = ("mailto", "mailtos")
_KEYS = {"urls", "when"}
_NOT_FAILURE = ("ok", "partial")


class NotifyConfigError(ValueError):
    """The ``[notify]`` configuration is refused (exit status 2); names the key."""


@dataclass(frozen=True)
class NotifySettings:
    """Where to send (Apprise URLs) and when (:data:`WHEN`)."""

    urls: tuple[str, ...] = ()
    when: str = "failure"

    def wants(self, results: Sequence[RunResult], cause: int) -> bool:
        """Whether a run with these results (and exit cause) is to be told.

        Examples
        --------
        >>> NotifySettings(("json://h/x",), "failure").wants([], 0)
        False
        """
        if not self.urls:
            return False
        if self.when == "always":
            return True
        if not results:
            return cause != Cause.OK
        if self.when == "partial":
            return any(not r.ok for r in results)
        return any(r.outcome not in _NOT_FAILURE for r in results)


def _table(doc: dict[str, Any], where: str, table: Any) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise NotifyConfigError(f"{where} must be a table")
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise NotifyConfigError(f"{where} has unknown keys {unknown}; allowed: {sorted(_KEYS)}")
    return dict(table)


def notify_settings(
    profile: str | None = None, *, urls: Iterable[str] = (), when: str | None = None
) -> NotifySettings:
    """The notification settings of a run: the config file's ``[notify]``, the profile's
    ``[profiles.NAME.notify]`` over it, then ``urls`` added and ``when`` (command line).

    Raises
    ------
    NotifyConfigError
        A key, a ``when`` or a URL list that is refused, named with the file.

    Examples
    --------
    >>> notify_settings("prod", urls=["json://hooks.example.com/x"]).when  # doctest: +SKIP
    'failure'
    """
    from opslib.client import config_path, profile_table
    from opslib.exceptions import ConfigError

    path = config_path()
    merged: dict[str, Any] = {}
    doc: dict[str, Any] = {}
    if path.is_file():
        try:
            doc = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise NotifyConfigError(f"cannot read the config file {path}: {exc}") from None
    if "notify" in doc:
        merged.update(_table(doc, f"{path}: [notify]", doc["notify"]))
    try:
        name, table = profile_table(profile)
    except ConfigError as exc:
        raise NotifyConfigError(str(exc)) from None
    if "notify" in table:
        merged.update(_table(doc, f"{path}: [profiles.{name}.notify]", table["notify"]))
    configured = merged.get("urls", [])
    if isinstance(configured, str):
        configured = [configured]
    if not isinstance(configured, list) or not all(isinstance(u, str) for u in configured):
        raise NotifyConfigError(f"{path}: notify urls must be a list of Apprise URLs")
    chosen = when or str(merged.get("when", "failure"))
    if chosen not in WHEN:
        raise NotifyConfigError(f"notify when = {chosen!r}; allowed: {', '.join(WHEN)}")
    every = tuple(dict.fromkeys([*configured, *urls]))
    _check_urls(every)
    return NotifySettings(every, chosen)


def _check_urls(urls: Sequence[str]) -> None:
    """Refuse a URL Apprise cannot send to before anything runs: it used to be told only
    after the run, as "not delivered". The message shows the scheme and host only (a URL
    may hold a password or a token)."""
    if not urls:
        return
    import apprise

    for url in urls:
        if apprise.Apprise.instantiate(url) is None:
            parts = urlsplit(url)
            shown = f"'{parts.scheme}://{parts.hostname or ''}...'" if parts.scheme else "given"
            raise NotifyConfigError(
                f"the notify URL {shown} is not one Apprise can send to; give one such as "
                "mailto://user:password@example.com or json://hooks.example.com/path "
                "(https://github.com/caronc/apprise/wiki)"
            )


def known_secrets(profile: str | None = None) -> set[str]:
    """Every secret value this process knows: the environment's secret-looking variables
    and the profile's ``client_secret`` and ``password``; none ever goes out."""
    found = {value for name, value in os.environ.items() if SECRET_NAME.search(name)}
    try:
        from opslib.client import resolve_settings

        settings = resolve_settings(profile=profile)
        for secret in (settings.client_secret, settings.password):
            if secret:
                found.add(secret.get_secret_value())
    except Exception:  # noqa: S110 - no usable profile: nothing more to hide from it
        pass
    return {value for value in found if len(value) >= 4}


def _scrub(text: str, secrets: Iterable[str]) -> str:
    for value in sorted(secrets, key=len, reverse=True):
        text = text.replace(value, "***")
    return text


def _platform_line(results: Sequence[RunResult]) -> str:
    data = next((r.platform for r in results if r.platform), None)
    if not data:
        return ""
    platform = Platform.from_dict(data)
    return f"Platform: {platform.name}; account {platform.account}"


def compose(
    results: Sequence[RunResult],
    *,
    run: str,
    cause: int,
    index: str = "",
    stopped: str = "",
    names: Sequence[str] = (),
) -> tuple[str, str]:
    """The message: its first line (title) and its body, secrets not yet scrubbed.

    The title starts with the reports (``report/label``) in every case: those that did not
    succeed, every one when all are ok, and ``names`` (the reports a refused run was to
    run) when nothing ran. ``run`` names the run (command, host); ``stopped`` is the one
    line of a run-all that stopped early or of a run refused before anything ran.

    Examples
    --------
    >>> title, body = compose([], run="opslib report run on ops1", cause=3,
    ...                       stopped="cannot reach https://ops.example.com",
    ...                       names=["fleet_inventory/hourly"])
    >>> title
    'fleet_inventory/hourly: nothing was run: cannot reach https://ops.example.com'
    """
    bad = [r for r in results if not r.ok]
    groups: dict[tuple[str, str], list[str]] = {}
    for r in bad:
        groups.setdefault((r.outcome, r.reason), []).append(r.name)
    if not results:
        title = f"{', '.join(names) or run}: nothing was run: {stopped}"
    elif bad:
        parts = [
            f"{', '.join(group)} {outcome}: {reason}" for (outcome, reason), group in groups.items()
        ]
        title = "; ".join(parts)
    elif len(results) == 1:
        title = f"{results[0].name}: ok"
    else:
        every = ", ".join(r.name for r in results)
        title = f"{every}: {len(results)} of {len(results)} reports ok"
    started = min((r.started_at for r in results), default="")
    exit_cause = Cause(cause)
    lines = [
        _platform_line(results),
        f"Run: {run}" + (f", started {when_text(started)}" if started else "")
        + f"; exit {int(exit_cause)} ({exit_cause.label})",
    ]  # fmt: skip
    if stopped and results:
        lines.append(f"Stopped: {stopped}")
    if names and not results:
        lines.append(f"Not run: {', '.join(names)}")
    lines.append("")
    for r in results:
        c = Cause(r.cause)
        lines.append(f"{r.name}: {r.outcome}, cause {int(c)} {c.label}, {r.duration_s:.1f} s")
        if r.reason:
            lines.append(f"  {r.reason}")
        if r.html or r.run_dir:
            lines.append(f"  report: {r.html or r.run_dir}")
    if index:
        lines += ["", f"Index: {index}"]
    return title.replace("\n", " "), "\n".join(line for line in lines if line is not None)


@dataclass
class Delivery:
    """One target's answer: its URL with secrets masked, and the error when not delivered."""

    target: str
    delivered: bool
    error: str = ""


@dataclass
class _Attachments:
    paths: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _attachments(
    reports: Sequence[tuple[str, str]], secrets: set[str], folder: Path
) -> _Attachments:
    """The reports (name, HTML path) a mail attaches, each a copy that draws its charts
    anywhere (plotly.js inside it, :func:`~opslib.reports.export.self_contained_copy`),
    written in ``folder``."""
    from opslib.reports.export import self_contained_copy

    out, total = _Attachments(), 0
    for n, (name, path) in enumerate(reports):
        if not path or not Path(path).is_file():
            continue
        html = self_contained_copy(path, folder / str(n) / Path(path).name)
        size = html.stat().st_size
        text = html.read_text(encoding="utf-8", errors="replace")
        if any(value in text for value in secrets):
            out.notes.append(f"{name}: HTML not attached: it holds a secret value")
        elif total + size > ATTACH_LIMIT:
            out.notes.append(
                f"{name}: HTML not attached: {size / 2**20:.1f} MB over the "
                f"{ATTACH_LIMIT / 2**20:.0f} MB limit of one mail"
            )
        else:
            total += size
            out.paths.append(str(html))
    return out


def _target(apobj: Any, url: str) -> str:
    try:
        return str(apobj[0].url(privacy=True))
    except (IndexError, Exception):  # not a usable URL: show its scheme only
        return f"{urlsplit(url).scheme or 'unknown'}://***"


def send(
    settings: NotifySettings,
    results: Sequence[RunResult],
    *,
    run: str,
    cause: int,
    index: str = "",
    stopped: str = "",
    secrets: set[str] | None = None,
    names: Sequence[str] = (),
) -> list[Delivery]:
    """Send the message to each target of ``settings``; one :class:`Delivery` per target.

    ``names`` are the reports (and run-all entries) a run that ran nothing was to run.
    Never raises for a target that fails: its error is in the delivery.

    Examples
    --------
    >>> settings = NotifySettings(("json://127.0.0.1:9/x",), "always")
    >>> [d.delivered for d in send(settings, [], run="test", cause=0)]  # doctest: +SKIP
    [False]
    """
    title, body = compose(results, run=run, cause=cause, index=index, stopped=stopped, names=names)
    chosen = [r for r in results if not r.ok] or list(results)
    kind = "success" if all(r.ok for r in results) and results else "failure"
    return deliver(
        settings.urls, title, body, reports=[(r.name, r.html) for r in chosen],
        secrets=secrets or set(), kind=kind,
    )  # fmt: skip


def deliver(
    urls: Sequence[str],
    title: str,
    body: str,
    *,
    reports: Sequence[tuple[str, str]],
    secrets: set[str],
    kind: str = "info",
) -> list[Delivery]:
    """Send one message to each Apprise URL, e-mails with the ``reports`` (name, HTML
    path) attached; title and body scrubbed of ``secrets`` and of the URLs' passwords.
    ``kind`` is Apprise's notification type: info, success, warning or failure.

    Never raises for a target that fails: its error is in its :class:`Delivery`.

    Examples
    --------
    >>> deliver(["json://127.0.0.1:9/x"], "title", "body", reports=[], secrets=set())
    ...  # doctest: +SKIP
    [Delivery(target='json://127.0.0.1:9/x', delivered=False, error='...')]
    """
    secrets = set(secrets)
    secrets |= {p for u in urls if (p := urlsplit(u).password) and len(p) >= 4}
    with tempfile.TemporaryDirectory(prefix="opslib-mail-") as folder:
        attached = _attachments(reports, secrets, Path(folder))
        if attached.paths or attached.notes:
            names = ", ".join(Path(p).name for p in attached.paths) or "none"
            body += "\n\nAttached to e-mails: " + names
            body += "".join(f"\n  {note}" for note in attached.notes)
        return _deliver(
            urls, _scrub(title, secrets), _scrub(body, secrets), attached, secrets, kind
        )


def _deliver(
    urls: Sequence[str],
    title: str,
    body: str,
    attached: _Attachments,
    secrets: set[str],
    kind: str,
) -> list[Delivery]:
    import apprise

    deliveries = []
    for url in urls:
        apobj = apprise.Apprise()
        if not apobj.add(url):
            deliveries.append(Delivery(_target(apobj, url), False, "not a valid Apprise URL"))
            continue
        target = _target(apobj, url)
        attach = None
        if urlsplit(url).scheme.lower() in _EMAIL and attached.paths:
            attach = apprise.AppriseAttachment()
            for path in attached.paths:
                attach.add(path)
        try:
            result = apobj.notify(
                body, title=title, notify_type=apprise.NotifyType(kind), attach=attach,
                body_format="text",
            )  # fmt: skip
        except Exception as exc:  # a target's failure never stops the run
            deliveries.append(
                Delivery(target, False, _scrub(f"{type(exc).__name__}: {exc}", secrets))
            )
            continue
        if result:
            deliveries.append(Delivery(target, True))
            continue
        logs = result.logs() if hasattr(result, "logs") else []
        said = [e.message for e in logs if e.level in ("WARNING", "ERROR", "CRITICAL")]
        error = said[-1] if said else "the target did not accept the message"
        deliveries.append(Delivery(target, False, _scrub(error, secrets)))
    return deliveries


def summary(deliveries: Sequence[Delivery]) -> dict[str, Any]:
    """The count status.json keeps: ``targets``, ``delivered``, each ``undelivered``."""
    return {
        "targets": len(deliveries),
        "delivered": sum(d.delivered for d in deliveries),
        "undelivered": [
            {"target": d.target, "error": d.error} for d in deliveries if not d.delivered
        ],
    }


def record_deliveries(results: Sequence[RunResult], deliveries: Sequence[Delivery]) -> None:
    """Count the deliveries in each run's status.json (``notify``); outcomes stay."""
    counted = summary(deliveries)
    for result in results:
        result.notify = counted
        if result.run_dir and Path(result.run_dir).is_dir():
            write_status(result)


def run_name(command: str) -> str:
    """``opslib report run-all on host ops1``: the run, as a message names it."""
    return f"opslib {command} on host {socket.gethostname()}"
