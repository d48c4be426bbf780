"""The built-in "chint" dialect: every fact of the published sheet, each with its source."""

from __future__ import annotations

import dataclasses
import re
import tomllib

from opslib.dialects import Dialect
from opslib.protocol.tables import dialect_from_table, dialect_to_toml


def test_chint_is_built_in_and_round_trips() -> None:
    d = Dialect.named("chint")
    assert "chint" in Dialect.names()
    assert dialect_from_table("chint") == d
    assert dialect_from_table({"base": "chint"}) == d
    table = tomllib.loads(dialect_to_toml(d))["dialect"]
    assert dialect_from_table(table) == d


def test_selectors_are_zero_based() -> None:
    s = Dialect.named("chint").selectors
    assert s["login_model"] == {"password": 0, "sms_code": 1}
    assert s["auth_model"]["verify"] == 6
    assert s["auth_model"]["register"] == 3
    assert s["code_model"] == {"sms": 0}
    assert s["update_model"] == {"change": 0, "reset": 1}
    assert s["user_query_model"]["by_user_id"] == 0
    assert s["record_query_model"] == {"device": 0, "user": 1}  # no fleet mode
    assert s["setting_query_model"]["all"] == 0
    assert s["setting_query_model"]["message"] == 2


def test_enums_and_kinds_read_2021_and_2026() -> None:
    d = Dialect.named("chint")
    assert d.enums["event_type"][0] == "property report"  # 2026
    assert d.enums["event_type"][2] == "fault"  # 2021 records only
    assert d.enums["device_status"][3] == "disabled"
    assert d.enums["device_status"][4] == "activated"
    assert d.enums["net_type"][0] == "Wi-Fi"
    assert d.enums["node_type"] == {0: "device", 1: "gateway"}
    assert d.enums["popular"][2] == "recommended"
    assert d.event_kinds == {0: "property", 1: "fault", 2: "fault"}
    assert "connectivity" not in d.event_kinds.values()


def test_errors_times_paging_capabilities_secrets() -> None:
    d = Dialect.named("chint")
    assert d.errors.codes[460] == "BadRequest"
    assert d.errors.codes[8104] == "NotFound"
    assert d.errors.codes[8106] == "VerificationFailed"
    assert d.errors.codes[8202] == "NotFound"
    assert 100001 in d.errors.token_expired_codes
    assert 100004 in d.errors.token_expired_codes
    assert d.errors.message_fields[0] == "error_description"
    assert d.times.gmt_format == "epoch_ms"
    assert d.paging.max_page_size == 100
    assert d.capabilities.fleet_events is False
    assert {"device_secret", "product_secret"} <= d.secrets
    assert d.required["/device/query_record"] == ("user_id", "query_model", "page_no", "page_size")
    assert "device_secret" not in d.required["/device/bind"]
    assert "vendor_type" in d.required["/product/add"]


def test_every_field_says_where_it_comes_from() -> None:
    d = Dialect.named("chint")
    wanted = []
    for f in dataclasses.fields(d):
        value = getattr(d, f.name)
        if f.name in ("name", "provenance") or f.name.startswith("_"):
            continue
        if dataclasses.is_dataclass(value):
            wanted += [f"{f.name}.{sf.name}" for sf in dataclasses.fields(value)]
        elif f.name in ("selectors", "enums"):
            wanted += [f"{f.name}.{key}" for key in value]
        else:
            wanted.append(f.name)
    missing = [key for key in wanted if key not in d.provenance]
    assert not missing
    for key, where in d.provenance.items():
        assert where.startswith(("documented: ", "assumed: ")), key


# The published documents' lengths in lines, to check that every cited line exists: the
# 2026 OpenAPI documents (docs/specs/*-service.yaml at d258678) and the 2021 pages
# (docs/api-reference/*.html, docs/common-parameters/*.html at 2448769).
_SPEC_LINES = {"T": 169, "U": 718, "D": 542, "P": 461}
_PAGE_LINES = {
    "device-service": 1113,
    "user-service": 1406,
    "product-service": 987,
    "token-service": 470,
    "code-dict": 476,
    "param-list": 245,
    "things-model": 391,
    "area-number": 806,
}
_RANGES = r"(\d+(?:-\d+)?(?:, \d+(?:-\d+)?)*)"
_SPEC_CITE = re.compile(rf"\b([TUDP]) {_RANGES}")
_PAGE_CITE = re.compile(rf"\b([a-z]+-[a-z]+)\.html {_RANGES}")


def _cited(text: str) -> list[tuple[str, int, int]]:
    """(document, first line, last line) of every citation in a provenance entry."""
    found = []
    for pattern in (_SPEC_CITE, _PAGE_CITE):
        for doc, ranges in pattern.findall(text):
            for part in ranges.split(", "):
                first, _, last = part.partition("-")
                found.append((doc, int(first), int(last or first)))
    return found


def test_every_documented_entry_names_its_documents_and_lines() -> None:
    """A ``documented:`` entry cites at least one published document with line numbers
    (``D 131-135``, ``2021 device-service.html 882-896``), every cited line exists in that
    document, and an ``assumed:`` entry says why."""
    provenance = Dialect.named("chint").provenance
    for key, where in provenance.items():
        kind, _, why = where.partition(": ")
        assert kind in ("documented", "assumed"), (key, where)
        cited = _cited(why)
        if kind == "documented":
            assert cited, f"{key}: no document and lines in {where!r}"
        else:
            assert len(why) >= 30, f"{key}: an assumption says why: {where!r}"
        for doc, first, last in cited:
            length = _SPEC_LINES.get(doc) or _PAGE_LINES.get(doc)
            assert length is not None, f"{key}: unknown document {doc!r} in {where!r}"
            assert 1 <= first <= last <= length, f"{key}: {doc} {first}-{last} ({length} lines)"


def test_the_interpretations_are_marked_and_total_is_documented() -> None:
    provenance = Dialect.named("chint").provenance
    assert provenance["paging.total"].startswith("documented: D 162-164, 408-410")
    assert "总条数" in provenance["paging.total"]
    assert "云端总数" in provenance["paging.total"]
    for key in ("interpretations.auth_model", "interpretations.record_user_id"):
        assert provenance[key].startswith("assumed: "), key
    assert "interpretations.auth_model" in provenance["selectors.auth_model"]
    assert "P 176-178" in provenance["other.category_id"]
