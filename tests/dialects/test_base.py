"""The Dialect object: defaults, the built-ins, profile tables and the TOML round trip."""

from __future__ import annotations

import tomllib

import pytest

from opslib.dialects import Dialect, Times
from opslib.enums import EventType, LoginModel, labels
from opslib.exceptions import ConfigError
from opslib.protocol.tables import dialect_from_table, dialect_to_toml, resolve_dialect


def test_defaults_are_the_reference_platform() -> None:
    d = Dialect()
    assert d.name == "opslib"
    assert d.token.params == "query"
    assert d.token.user_id_field == "user_id"
    assert d.token.expires_in_unit == "s"
    assert d.errors.signalling == "status"
    assert d.errors.message_fields[0] == "error_msg"
    assert d.errors.codes[404] == "NotFound"
    assert d.errors.token_expired_codes == frozenset({401})
    assert d.times.gmt_format == "datetime"
    assert d.times.zone == "UTC"
    assert d.times.range_unit == "ms"
    assert d.paging.max_page_size == 1000
    assert d.paging.total == "records"
    assert d.selectors["login_model"] == {"password": int(LoginModel.PASSWORD), "sms_code": 2}
    assert d.enums["event_type"] == labels(EventType)
    assert d.event_kinds[int(EventType.ALARM)] == "fault"
    assert d.capabilities.fleet_events is True
    assert d.secrets == {"device_secret", "product_secret"}
    assert Dialect.named("opslib") == d


def test_vendor_decides_the_open_points_otherwise() -> None:
    d = Dialect.named("vendor")
    assert (d.errors.signalling, d.times.range_unit, d.paging.total) == ("body", "s", "pages")
    assert d.paging.max_page_size == 100
    assert d.token.expires_in_unit == "ms"
    assert d.errors.codes[10006] == "Conflict"
    assert Dialect.named("vendor-local").times.zone == "Asia/Shanghai"
    assert Dialect.named("vendor-epoch").times.gmt_format == "epoch_ms"


def test_a_dialect_cannot_be_changed() -> None:
    d = Dialect()
    with pytest.raises(AttributeError):
        d.name = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        d.errors.codes[999] = "NotFound"  # type: ignore[index]


def test_unknown_name_lists_the_built_ins() -> None:
    with pytest.raises(ConfigError, match=r"unknown dialect 'nope'.*'vendor'"):
        Dialect.named("nope")


def test_from_mapping_starts_from_base_and_overrides() -> None:
    d = dialect_from_table(
        {
            "base": "vendor",
            "paging": {"max_page_size": 50},
            "errors": {
                "codes": {"7": "NotFound", "8": "RateLimited"},
                "token_expired_codes": [7],
                "retry_after": {"8": 45},
            },
            "enums": {"event_type": {"0": "info"}},
        }
    )
    assert d.errors.retry_after == {8: 45.0}
    assert d.paging.max_page_size == 50
    assert d.paging.total == "pages"  # kept from vendor
    assert d.errors.codes == {7: "NotFound", 8: "RateLimited"}
    assert d.errors.token_expired_codes == frozenset({7})
    assert d.enums["event_type"] == {0: "info"}
    assert d.name == "vendor"


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"bogus": 1}, r"unknown keys \['bogus'\]"),
        ({"times": {"unit": "s"}}, r"times: unknown keys \['unit'\]"),
        ({"times": {"range_unit": "min"}}, r"times.range_unit: 'min' is not one of"),
        ({"times": {"zone": "Mars/Base"}}, r"times.zone: unknown zone 'Mars/Base'"),
        ({"paging": {"max_page_size": 0}}, r"paging.max_page_size: must be between 1 and 1000"),
        ({"errors": {"codes": {"x": "NotFound"}}}, r"errors.codes: key 'x' is not an integer"),
        ({"errors": {"codes": {"7": "Oops"}}}, r"errors.codes\[7\]: 'Oops' is not one of"),
        ({"event_kinds": {"1": "weird"}}, r"event_kinds: 'weird' \(event_type 1\)"),
        ({"errors": {"retry_after": {"x": 5}}}, r"errors.retry_after: .* integer codes to seconds"),
        ({"errors": {"retry_after": {"8": "soon"}}}, r"errors.retry_after: .* codes to seconds"),
        ({"errors": {"retry_after": {"8": -1}}}, r"errors.retry_after: .* a negative wait"),
        ({"base": "nope"}, r"unknown dialect 'nope'"),
    ],
)
def test_bad_tables_name_the_field(table: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        dialect_from_table(table)


@pytest.mark.parametrize("name", Dialect.names())
def test_to_toml_round_trips(name: str) -> None:
    d = Dialect.named(name)
    doc = tomllib.loads(dialect_to_toml(d, "plant"))
    assert dialect_from_table(doc["profiles"]["plant"]["dialect"]) == d


def test_to_toml_with_base_says_only_what_differs() -> None:
    d = Dialect.named("vendor").replace(paging={"max_page_size": 20})
    text = dialect_to_toml(d, "plant", base="vendor")
    table = tomllib.loads(text)["profiles"]["plant"]["dialect"]
    assert table == {"base": "vendor", "paging": {"max_page_size": 20}}
    assert dialect_from_table(table) == d


def test_replace_changes_only_named_section_fields() -> None:
    d = Dialect().replace(times={"zone": "+08:00"})
    assert d.times == Times(zone="+08:00")
    assert d.paging == Dialect().paging


def test_resolve_dialect_takes_every_form() -> None:
    assert resolve_dialect(None) == Dialect()
    assert resolve_dialect("vendor").name == "vendor"
    assert resolve_dialect({"base": "vendor"}).name == "vendor"
    d = Dialect(name="mine")
    assert resolve_dialect(d) is d


@pytest.mark.parametrize("name", Dialect.names())
def test_a_dialect_pickles(name: str) -> None:
    # a Dask task graph carries the client's dialect to its workers
    import pickle

    d = Dialect.named(name).replace(paging={"max_page_size": 7})
    back = pickle.loads(pickle.dumps(d))
    assert back == d
    assert back.name == d.name
    assert back.provenance == d.provenance
