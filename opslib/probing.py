"""``opslib probe``: learn a platform's dialect with reads only, and write it as a profile.

The probe logs in and asks what can be asked safely: the same reads a client makes, a
few of them with a nonexistent id, a bogus token or a page of 1000. It never writes (no
add, bind, update, register or SMS). Each finding says what it is, how sure the probe is
(``high``: seen directly; ``medium``: inferred; ``low``: not observable, the base
dialect's value kept) and what it saw. The result's ``.dialect`` goes to
``opslib.connect(dialect=...)``; ``.to_toml(profile)`` is the section to paste into
``config.toml``.

What it learns, in order:

1. the token call: the spec's query string, else a form body (each after a fresh login);
   ``expires_in``'s unit; whether ``openid`` is the login answer's ``user_id``;
2. errors: from reads of a device and a user that do not exist, a bad page size and a
   bogus access token: HTTP status or body, the codes, the message field; a bogus refresh
   token shows what a refused refresh looks like;
3. paging: one page of 1000 and one of 1 against the totals: the page cap, and whether
   ``total`` counts records or pages;
4. times: the ``gmt_*`` format from records and from the login answer, and the zone of
   zone-less times from ``gmt_last_login`` against the answer's ``Date`` header;
5. the unit of ``start``/``end``: the same 30 days counted in ms and in s;
6. the fleet: whether a whole-fleet read answers with devices, and whether a refusal is
   an error or an empty success;
7. event kinds: each event_type code's total against the total of all, so every event
   the platform holds has a code the dialect gives a kind.

Then it names the built-in dialect every finding agrees with (a dialect that reads errors
both ways agrees with either) and, for each point that dialect's provenance marks
``assumed``, says whether a finding checked it; ``.unchecked`` lists those none did.

>>> result = opslib.probe("https://ops.example.com", client_id="app", client_secret="s",
...     area_code="1", phone="5550000001", password="...")  # doctest: +SKIP
>>> print(result.to_toml("plant"))  # doctest: +SKIP
"""

from __future__ import annotations

import datetime as dt
import email.utils
import math
import re
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson

from opslib.dialects import Dialect, zone_of
from opslib.exceptions import ConfigError, OpsError
from opslib.protocol.tables import dialect_to_toml

__all__ = ["Finding", "ProbeResult", "probe"]

_NO_SUCH_DEVICE = "opslib-probe-no-such-device"
_NO_SUCH_USER = "opslib-probe-no-such-user"
_MESSAGE_FIELDS = ("error_msg", "msg", "message", "error_description", "errmsg")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?$")
_ISO_ZONED = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$")
_DIGITS = re.compile(r"^\d+$")


@dataclass(frozen=True)
class Finding:
    """One learned point: the dialect field, its value, how sure, and what was seen."""

    field: str
    value: Any
    confidence: str  # "high", "medium" or "low"
    evidence: str

    def __str__(self) -> str:
        return f"[{self.confidence:>6}] {self.field} = {self.value!r}: {self.evidence}"


@dataclass
class ProbeResult:
    """What :func:`probe` learned: ``dialect`` and the findings behind it.

    Examples
    --------
    >>> result = opslib.probe(url, **credentials)  # doctest: +SKIP
    >>> client = opslib.connect(url, dialect=result.dialect, **credentials)  # doctest: +SKIP
    """

    base_url: str
    dialect: Dialect
    findings: list[Finding] = field(default_factory=list)
    base: str = "opslib"
    unchecked: list[str] = field(default_factory=list)
    """The points the dialect's provenance marks assumed that the probe could not check."""

    def to_toml(self, profile: str = "platform") -> str:
        """The ``[profiles.PROFILE.dialect]`` section, only what differs from the base."""
        return dialect_to_toml(self.dialect, profile, base=self.base)

    def report(self, profile: str = "platform") -> str:
        """The findings, one a line, then the section to paste."""
        lines = [f"opslib probe {self.base_url}", ""]
        lines += [str(f) for f in self.findings]
        lines += ["", f"# paste into config.toml (next to [profiles.{profile}]):", ""]
        lines.append(self.to_toml(profile).rstrip())
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.report()


class _Wire:
    """Raw requests: the probe wants statuses, headers and bodies as they come."""

    def __init__(self, base_url: str, client_id: str, timeout: float) -> None:
        self.client_id = client_id
        self.http = httpx.Client(base_url=base_url.rstrip("/"), timeout=timeout)

    def envelope(
        self, path: str, params: dict[str, Any], *, user_id: str = "", token: str | None = None
    ) -> tuple[int, Any, httpx.Headers]:
        body: dict[str, Any] = {"message_id": str(uuid.uuid4()), "user_id": user_id}
        p = dict(params)
        if token is not None:
            p["access_token"] = token
        body["params"] = p
        response = self.http.post(
            path, content=orjson.dumps(body), headers={"Content-Type": "application/json"}
        )
        return response.status_code, _json(response), response.headers

    def token(self, form: dict[str, str], *, in_query: bool) -> tuple[int, Any]:
        if in_query:
            response = self.http.post("/token/access", params=form)
        else:
            response = self.http.post("/token/access", data=form)
        return response.status_code, _json(response)


def _json(response: httpx.Response) -> Any:
    try:
        return orjson.loads(response.content)
    except orjson.JSONDecodeError:
        return None


def _message_field(body: Any) -> str | None:
    if not isinstance(body, dict):
        return None
    return next((f for f in _MESSAGE_FIELDS if isinstance(body.get(f), str) and body[f]), None)


class _LoginRefused(OpsError):
    """The login failed under the base dialect's ``login_model``: another may fit."""


def _data(body: Any) -> dict[str, Any]:
    if isinstance(body, dict) and isinstance(body.get("data"), dict):
        return dict(body["data"])
    return {}


class _Probe:
    def __init__(self, wire: _Wire, base: Dialect, credentials: dict[str, str]) -> None:
        self.wire = wire
        self.base = base
        self.creds = credentials
        self.findings: list[Finding] = []
        self.changes: dict[str, dict[str, Any]] = {}
        self.success_code = 200
        self.user_id = ""
        self.token = ""
        self.login_answer: tuple[Any, httpx.Headers] | None = None
        self.matched: str | None = None  # the built-in dialect every finding agrees with
        self.unchecked: list[str] = []  # the dialect's assumed points no finding checked

    def note(self, section: str, name: str, value: Any, confidence: str, evidence: str) -> None:
        where = f"{section}.{name}" if name else section
        self.findings.append(Finding(where, value, confidence, evidence))
        if name and confidence != "low":
            self.changes.setdefault(section, {})[name] = value

    # -- 1. login and the token call ------------------------------------------------------

    def login(self) -> dict[str, Any]:
        selectors = self.base.selectors.get("login_model", {})
        params = {
            "client_id": self.wire.client_id,
            "login_model": selectors.get("password", 1),
            "area_code": self.creds["area_code"],
            "phone": self.creds["phone"],
            "password": self.creds["password"],
        }
        status, body, headers = self.wire.envelope("/user/login", params)
        data = _data(body)
        if (status != 200 and not data) or not data.get("code"):
            raise _LoginRefused(
                f"probe: the login failed (HTTP {status}, {_brief(body)}); check the "
                "credentials, or give base= a dialect whose login_model selector fits"
            )
        if isinstance(body, dict) and isinstance(body.get("error_code"), int):
            self.success_code = int(body["error_code"])
        self.login_answer = (data, headers)
        return data

    def token_call(self) -> None:
        form = {
            "grant_type": "authorization_code",
            "client_id": self.wire.client_id,
            "client_secret": self.creds["client_secret"],
            "redirect_uri": "none",
        }
        tried: list[str] = []
        for in_query in (True, False):
            data = self.login() if tried else self._first_login()
            status, body = self.wire.token({**form, "code": str(data["code"])}, in_query=in_query)
            style = "query" if in_query else "form"
            tried.append(f"{style}: HTTP {status}")
            fields = body if isinstance(body, dict) else {}
            if isinstance(fields.get("data"), dict) and "access_token" not in fields:
                fields = {**fields, **fields["data"]}
            if status == 200 and fields.get("access_token"):
                self.note(
                    "token", "params", style, "high", f"the token call worked ({', '.join(tried)})"
                )
                self._tokens(fields, data)
                return
        raise OpsError(f"probe: the token call failed both ways ({'; '.join(tried)})")

    def _first_login(self) -> dict[str, Any]:
        data = self.login()
        self._user_field(data)
        return data

    def _user_field(self, data: dict[str, Any]) -> None:
        field_name = self.base.token.user_id_field
        if data.get(field_name):
            self.user_id = str(data[field_name])
            self.note("token", "user_id_field", field_name, "high", "the login answer has it")
            return
        for candidate in ("user_id", "uid", "userId", "id"):
            if data.get(candidate):
                self.user_id = str(data[candidate])
                self.note("token", "user_id_field", candidate, "medium", "found in data")
                return
        self.note("token", "user_id_field", field_name, "low", "no user id in the login answer")

    def _tokens(self, fields: dict[str, Any], login: dict[str, Any]) -> None:
        self.token = str(fields["access_token"])
        self.refresh_token = str(fields.get("refresh_token") or "")
        openid = str(fields.get("openid") or "")
        if not self.user_id:
            self.user_id = openid
        same = openid == self.user_id
        self.findings.append(
            Finding(
                "token.openid",
                "the user_id" if same else "app-scoped",
                "high",
                "openid equals data.user_id"
                if same
                else f"openid {openid[:6]}... differs from data.user_id: the client sends "
                "data.user_id in every envelope",
            )
        )
        expires = fields.get("expires_in")
        if isinstance(expires, int | float) and not isinstance(expires, bool):
            # A token living more than 30 days in seconds is rare; 7,200,000 "s" is 83 days.
            unit = "ms" if expires >= 3_000_000 else "s"
            self.note("token", "expires_in_unit", unit, "medium", f"expires_in = {expires}")
        else:
            self.note("token", "expires_in_unit", "s", "low", "no expires_in in the answer")
        del login

    # -- 2. errors --------------------------------------------------------------------------

    def errors(self) -> None:
        codes: dict[int, str] = {}
        seen: list[str] = []
        signalling: set[str] = set()
        message_field: str | None = None
        reads: list[tuple[str, str, dict[str, Any], str]] = [
            ("NotFound", "/device/query", {"device_id": _NO_SUCH_DEVICE}, self.token),
            (
                "NotFound",
                "/user/query",
                {
                    "query_model": self.base.selectors.get("user_query_model", {}).get(
                        "by_user_id", 1
                    ),
                    "user_id": _NO_SUCH_USER,
                },
                self.token,
            ),
            (
                "BadRequest",
                "/device/query_by_user",
                {"user_id": self.user_id, "page_size": 0},
                self.token,
            ),
            (
                "AuthenticationError",
                "/user/query_sys_setting",
                {"query_model": 1},
                "opslib-probe-bogus-token",
            ),
        ]
        expired: set[int] = set()
        for cls, path, params, token in reads:
            status, body, _ = self.wire.envelope(path, params, user_id=self.user_id, token=token)
            code = body.get("error_code") if isinstance(body, dict) else None
            if not isinstance(code, int) or (code == self.success_code and status == 200):
                seen.append(f"{path}: HTTP {status}, no failure code")
                continue
            signalling.add("body" if status == 200 else ("status" if status == code else "both"))
            message_field = message_field or _message_field(body)
            codes.setdefault(code, cls)
            if cls == "AuthenticationError":
                expired.add(code)
            seen.append(f"{path} ({cls}): HTTP {status}, error_code {code}")
        evidence = "; ".join(seen)
        if signalling:
            mode = signalling.pop() if len(signalling) == 1 else "both"
            self.note("errors", "signalling", mode, "high", evidence)
        else:
            self.note("errors", "signalling", self.base.errors.signalling, "low", evidence)
        if message_field is not None:
            rest = tuple(f for f in self.base.errors.message_fields if f != message_field)
            self.note(
                "errors",
                "message_fields",
                (message_field, *rest),
                "high",
                f"failures carry {message_field!r}",
            )
        if codes:
            merged = dict(self.base.errors.codes)
            if not set(codes) <= set(merged):
                merged = {**merged, **codes}
                self.note(
                    "errors",
                    "codes",
                    merged,
                    "medium",
                    f"seen: {codes}; others kept from {self.base.name}",
                )
            else:
                self.findings.append(Finding("errors.codes", codes, "high", "as the base says"))
        if expired:
            self.note(
                "errors",
                "token_expired_codes",
                frozenset(expired),
                "medium",
                "a bogus access token's code",
            )
        self._refused_refresh()

    def _refused_refresh(self) -> None:
        form = {
            "grant_type": "refresh_token",
            "client_id": self.wire.client_id,
            "client_secret": self.creds["client_secret"],
            "refresh_token": "opslib-probe-bogus-refresh-token",
        }
        in_query = self.changes.get("token", {}).get("params", "query") == "query"
        status, body = self.wire.token(form, in_query=in_query)
        if not isinstance(body, dict):
            return
        if body.get("error") == "invalid_grant":
            self.findings.append(
                Finding(
                    "errors.token_refused_codes",
                    "invalid_grant",
                    "high",
                    "a bogus refresh token: OAuth error invalid_grant",
                )
            )
            return
        code = body.get("error_code")
        if isinstance(code, int) and code != self.success_code:
            self.note(
                "errors",
                "token_refused_codes",
                frozenset({code}),
                "high",
                f"a bogus refresh token: HTTP {status}, error_code {code}",
            )

    # -- 3. paging ---------------------------------------------------------------------------

    def paging(self) -> None:
        reads = [("/device/query_by_user", "device_list", {"user_id": self.fleet_user()})]
        events = self._event_params()
        if events is not None:
            reads.append(("/device/query_record", "events_list", events))
        best: tuple[tuple[int, int], tuple[int, int]] | None = None
        refused_big = False
        for path, key, params in reads:
            big = self._page(path, key, params, 1000)
            if big is None:  # a page of 1000 refused: a cap that errors; ask the base's
                big = self._page(path, key, params, self.base.paging.max_page_size)
                refused_big = refused_big or big is not None
            one = self._page(path, key, params, 1)
            if big is not None and one is not None and (best is None or one[1] > best[1][1]):
                best = (big, one)
        if best is None:
            self.note("paging", "", None, "low", "no paged read answered")
            return
        (rows, total_big), (_, total_one) = best
        if total_one <= 1:
            self.note(
                "paging",
                "total",
                self.base.paging.total,
                "low",
                f"{total_one} record(s): nothing to tell pages from records",
            )
            return
        served = rows
        if total_big == total_one:
            self.note(
                "paging", "total", "records", "high", f"total {total_big} at page sizes 1 and 1000"
            )
        elif served and total_big == math.ceil(total_one / served):
            self.note(
                "paging",
                "total",
                "pages",
                "high",
                f"total {total_one} at page size 1, {total_big} at {served} a page",
            )
        else:
            self.note(
                "paging",
                "total",
                self.base.paging.total,
                "low",
                f"totals {total_one} and {total_big} fit neither",
            )
        if refused_big:
            self.note(
                "paging",
                "max_page_size",
                self.base.paging.max_page_size,
                "high",
                f"asked 1000: refused; {self.base.paging.max_page_size} served",
            )
        elif 0 < served < min(1000, total_one):
            self.note(
                "paging",
                "max_page_size",
                served,
                "high",
                f"asked 1000, served {served} of {total_one}, no error",
            )
        else:
            self.findings.append(
                Finding(
                    "paging.max_page_size",
                    self.base.paging.max_page_size,
                    "medium",
                    f"asked 1000, served {served} of {total_one}",
                )
            )

    def _list_read(self) -> tuple[str, str, dict[str, Any]]:
        return "/device/query_by_user", "device_list", {"user_id": self.fleet_user()}

    def fleet_user(self) -> str:
        return "" if getattr(self, "fleet", False) else self.user_id

    def _page(
        self, path: str, key: str, params: dict[str, Any], size: int
    ) -> tuple[int, int] | None:
        status, body, _ = self.wire.envelope(
            path,
            {**params, "page_no": 1, "page_size": size},
            user_id=self.user_id,
            token=self.token,
        )
        data = _data(body)
        if not self._ok(status, body) or not isinstance(data.get(key), list):
            return None
        return len(data[key]), int(data.get("total") or 0)

    def _ok(self, status: int, body: Any) -> bool:
        return (
            status == 200 and isinstance(body, dict) and body.get("error_code") == self.success_code
        )

    # -- 4. times --------------------------------------------------------------------------

    def times(self) -> None:
        values: list[Any] = []
        _, body, _ = self.wire.envelope(
            "/device/query_by_user",
            {"user_id": self.fleet_user(), "page_no": 1, "page_size": 20},
            user_id=self.user_id,
            token=self.token,
        )
        for record in _data(body).get("device_list") or []:
            values += [v for k, v in record.items() if k.startswith("gmt_") and v not in (None, "")]
        login = self.login_answer[0] if self.login_answer else {}
        if login.get("gmt_last_login") not in (None, ""):
            values.append(login["gmt_last_login"])
        if not values:
            self.note("times", "gmt_format", self.base.times.gmt_format, "low", "no gmt_* seen")
            return
        kinds = {_kind(v) for v in values}
        kinds.discard(None)
        if len(kinds) == 1:
            kind = kinds.pop()
            self.note(
                "times", "gmt_format", kind, "high", f"{len(values)} values like {values[0]!r}"
            )
        else:
            self.note(
                "times",
                "gmt_format",
                self.base.times.gmt_format,
                "low",
                f"mixed forms: {sorted(str(k) for k in kinds)}",
            )
            return
        if kind == "datetime":
            self._zone(login)
        else:
            self.findings.append(
                Finding(
                    "times.zone",
                    "carried by each value",
                    "high",
                    f"{kind} values name their own moment",
                )
            )

    def _zone(self, login: dict[str, Any]) -> None:
        if self.login_answer is None or not login.get("gmt_last_login"):
            self.note("times", "zone", self.base.times.zone, "low", "no login time to compare")
            return
        date = self.login_answer[1].get("date")
        when = email.utils.parsedate_to_datetime(date) if date else None
        if when is None:
            self.note("times", "zone", self.base.times.zone, "low", "no Date header")
            return
        shown = dt.datetime.fromisoformat(str(login["gmt_last_login"]).replace(" ", "T"))
        offset_s = (shown - when.replace(tzinfo=None)).total_seconds()
        quarters = round(offset_s / 900)
        residual = abs(offset_s - quarters * 900)
        minutes = quarters * 15
        zone = (
            "UTC"
            if minutes == 0
            else f"{'+' if minutes > 0 else '-'}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
        )
        confidence = "high" if residual <= 120 else "medium"
        self.note(
            "times",
            "zone",
            zone,
            confidence,
            f"gmt_last_login {login['gmt_last_login']} against Date {date}",
        )

    # -- 5. the range unit -----------------------------------------------------------------

    def range_unit(self) -> None:
        end_ms = int(time.time() * 1000)
        start_ms = end_ms - 30 * 86_400_000
        counts = {}
        for unit, (start, end) in (
            ("ms", (start_ms, end_ms)),
            ("s", (start_ms // 1000, end_ms // 1000)),
        ):
            counts[unit] = self._events(start, end)
        evidence = f"the last 30 days: {counts['ms']} events in ms, {counts['s']} in s"
        ms, s = counts["ms"] or 0, counts["s"] or 0
        if ms > 0 and s == 0:
            self.note("times", "range_unit", "ms", "high", evidence)
        elif s > 0 and ms == 0:
            self.note("times", "range_unit", "s", "high", evidence)
        else:
            self.note("times", "range_unit", self.base.times.range_unit, "low", evidence)

    def _event_query(self) -> dict[str, Any]:
        models = self.base.selectors.get("record_query_model", {})
        if getattr(self, "fleet", False) and "fleet" in models:
            return {"query_model": models["fleet"]}
        query = {"query_model": models.get("user", 2), "user_id_param": self.user_id}
        if "user_id" in self.base.required.get("/device/query_record", ()):
            query["user_id"] = self.user_id  # required there (CHINT: the 2021 name)
        return query

    def _event_params(self) -> dict[str, Any] | None:
        """The last 30 days of events in the unit learned (None when it was not)."""
        unit = self.changes.get("times", {}).get("range_unit", self.base.times.range_unit)
        end_ms = int(time.time() * 1000)
        start_ms = end_ms - 30 * 86_400_000
        if unit == "s":
            start_ms, end_ms = start_ms // 1000, end_ms // 1000
        return {**self._event_query(), "start": start_ms, "end": end_ms}

    def _events(self, start: int, end: int) -> int | None:
        params = self._event_query()
        status, body, _ = self.wire.envelope(
            "/device/query_record",
            {**params, "start": start, "end": end, "page_no": 1, "page_size": 1},
            user_id=self.user_id,
            token=self.token,
        )
        if not self._ok(status, body):
            return None
        return int(_data(body).get("total") or 0)

    # -- 6. the fleet ----------------------------------------------------------------------

    def fleet_check(self) -> None:
        status, body, _ = self.wire.envelope(
            "/device/query_by_user",
            {"user_id": "", "page_no": 1, "page_size": 1},
            user_id=self.user_id,
            token=self.token,
        )
        rows = _data(body).get("device_list") if self._ok(status, body) else None
        self.fleet = bool(rows)
        if self.fleet:
            self.findings.append(
                Finding("fleet", "readable", "high", 'user_id "" answered with devices')
            )
            return
        own = self._page("/device/query_by_user", "device_list", {"user_id": self.user_id}, 1)
        if rows is not None and own is not None and own[0] > 0:
            self.note(
                "capabilities",
                "fleet_refusal",
                "empty",
                "high",
                'user_id "" answered an empty success while the caller has devices',
            )
        elif rows is None:
            self.note(
                "capabilities",
                "fleet_refusal",
                "error",
                "high",
                f'user_id "" refused (HTTP {status}, {_brief(body)})',
            )
        else:
            self.findings.append(
                Finding(
                    "fleet",
                    "not proven",
                    "low",
                    "an empty answer and no devices of the caller's own",
                )
            )

    # -- 7. event kinds ---------------------------------------------------------------------

    def event_kinds(self) -> None:
        """Whether every event the platform holds has a code the base gives a kind: the
        total of each code's events against the total of all (30 days; a read)."""
        params = self._event_params()
        codes = sorted(self.base.event_kinds)
        if params is None or not codes:
            return
        totals: dict[int, int] = {}
        for code in codes:
            status, body, _ = self.wire.envelope(
                "/device/query_record",
                {**params, "event_type": code, "page_no": 1, "page_size": 1},
                user_id=self.user_id,
                token=self.token,
            )
            if not self._ok(status, body):
                self.findings.append(
                    Finding("event_kinds", None, "low", f"event_type {code}: {_brief(body)}")
                )
                return
            totals[code] = int(_data(body).get("total") or 0)
        status, body, _ = self.wire.envelope(
            "/device/query_record",
            {**params, "page_no": 1, "page_size": 1},
            user_id=self.user_id,
            token=self.token,
        )
        every = int(_data(body).get("total") or 0) if self._ok(status, body) else None
        seen = {c: n for c, n in totals.items() if n}
        kinds = {c: self.base.event_kinds.get(c) for c in seen}
        evidence = f"the last 30 days: {every} events; by event_type {seen}"
        if every is None or not every:
            self.findings.append(Finding("event_kinds", kinds, "low", evidence))
        elif sum(seen.values()) < every:
            self.findings.append(
                Finding(
                    "event_kinds",
                    kinds,
                    "high",
                    f"{evidence}: {every - sum(seen.values())} events of a code "
                    f"{self.base.name} does not name; say their kind in the profile",
                )
            )
        else:
            self.findings.append(
                Finding("event_kinds", kinds, "medium", f"{evidence}: each code has a kind")
            )

    def assumed(self, dialect: Dialect) -> list[str]:
        """One finding per point ``dialect``'s provenance marks assumed: checked (a finding
        of that field that is not low) or not; the names of those not checked."""
        sure = {f.field for f in self.findings if f.confidence != "low"}
        points = [k for k, v in dialect.provenance.items() if v.startswith("assumed")]
        unchecked = [k for k in points if k not in sure]
        for key in unchecked:
            reason = dialect.provenance[key].removeprefix("assumed:").strip()
            self.findings.append(
                Finding(key, "not checked", "low", f"assumed by {dialect.name}: {reason}")
            )
        if points:
            checked = len(points) - len(unchecked)
            self.findings.append(
                Finding(
                    "assumed",
                    f"{checked} of {len(points)} checked",
                    "high" if not unchecked else "low",
                    f"{dialect.name}'s assumed points: {', '.join(points)}",
                )
            )
        return unchecked

    def run(self) -> Dialect:
        self.token_call()
        self.fleet_check()
        self.errors()
        self.times()
        self.range_unit()
        self.paging()
        self.event_kinds()
        for name in Dialect.names():
            candidate = Dialect.named(name)
            if all(
                _agrees(candidate, section, k, v)
                for section, fields in self.changes.items()
                for k, v in fields.items()
            ):
                self.matched = name
                self.findings.append(
                    Finding("dialect", name, "high", "every finding agrees with this built-in")
                )
                self.unchecked = self.assumed(candidate)
                return candidate
        self.matched = None
        self.unchecked = self.assumed(self.base)
        for section in ("token", "errors", "times", "paging", "capabilities"):
            if section in self.changes:
                self.changes[section] = {
                    k: v
                    for k, v in self.changes[section].items()
                    if v != getattr(getattr(self.base, section), k)
                }
        changes = {k: v for k, v in self.changes.items() if v}
        return self.base.replace(**changes)


def _agrees(candidate: Dialect, section: str, name: str, value: Any) -> bool:
    """Whether a built-in dialect agrees with one finding (what was seen, not all of it)."""
    have = getattr(getattr(candidate, section), name)
    if name == "codes":
        seen = {c: n for c, n in value.items() if c not in Dialect().errors.codes}
        return all(have.get(c) == n for c, n in seen.items()) and (
            bool(seen) or set(value) <= set(have)
        )
    if name in ("token_expired_codes", "token_refused_codes"):
        return set(value) <= set(have)
    if name == "message_fields":
        return bool(have) and have[0] == value[0]
    if name == "signalling" and have == "both":  # a dialect that reads either way
        return value in ("status", "body", "both")
    if name == "zone":
        now = dt.datetime.now(dt.UTC)
        return bool(zone_of(have).utcoffset(now) == zone_of(value).utcoffset(now))
    return bool(have == value)


def _kind(value: Any) -> str | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return "epoch_ms" if value >= 100_000_000_000 else "epoch_s"
    if not isinstance(value, str):
        return None
    text = value.strip()
    if _DIGITS.match(text):
        return "epoch_ms" if int(text) >= 100_000_000_000 else "epoch_s"
    if _ISO_ZONED.match(text):
        return "iso"
    if _DATETIME.match(text):
        return "datetime" if " " in text else "iso"
    return None


def _brief(body: Any) -> str:
    text = orjson.dumps(body).decode() if body is not None else "no JSON"
    return text if len(text) <= 160 else text[:157] + "..."


def _login_bases() -> list[Dialect]:
    """The reference dialect, then one built-in per other ``login_model`` password value."""
    bases = [Dialect.named("opslib")]
    for name in Dialect.names():
        candidate = Dialect.named(name)
        password = candidate.selectors.get("login_model", {}).get("password")
        if all(b.selectors.get("login_model", {}).get("password") != password for b in bases):
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
    """Learn a platform's dialect with reads only (see the module for what it asks).

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
    wire = _Wire(base_url, client_id, timeout)
    try:
        for number, start in enumerate(bases, 1):
            run = _Probe(wire, start, credentials)
            try:
                dialect = run.run()
                break
            except _LoginRefused:
                if number == len(bases):
                    raise
    finally:
        wire.http.close()
    name = run.matched or (start.name if not isinstance(base, Dialect) else "opslib")
    return ProbeResult(
        base_url=base_url,
        dialect=dialect,
        findings=run.findings,
        base=name,
        unchecked=run.unchecked,
    )


def probe_command(args: Any) -> int:
    """``opslib probe``: the findings and the section on stdout; exit 2 when it fails."""
    import getpass
    import os
    import sys
    from pathlib import Path

    def value(name: str, env: str) -> str:
        return str(getattr(args, name) or os.environ.get(env) or "")

    password = value("password", "OPSLIB_PASSWORD")
    if not password and sys.stdin.isatty():
        password = getpass.getpass("password: ")
    try:
        result = probe(
            args.base_url,
            client_id=value("client_id", "OPSLIB_CLIENT_ID"),
            client_secret=value("client_secret", "OPSLIB_CLIENT_SECRET"),
            area_code=value("area_code", "OPSLIB_AREA_CODE"),
            phone=value("phone", "OPSLIB_PHONE"),
            password=password,
            base=args.base,
        )
    except (OpsError, httpx.HTTPError) as exc:
        print(f"opslib probe: {exc}", file=sys.stderr)
        return 2
    print(result.report(args.profile), end="")
    if args.out:
        Path(args.out).write_text(result.to_toml(args.profile), encoding="utf-8")
        print(f"\nwritten to {args.out}")
    return 0
