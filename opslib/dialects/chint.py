"""``"chint"``: the CHINT smart cloud, the commercial platform whose public API our
interface is. ``opslib server --dialect chint`` speaks it.

Every value comes from its published reference (repository ``chintiot/chintiot.github.io``):
the 2026 OpenAPI documents ``docs/specs/{token,user,device,product}-service.yaml`` (cited
``T``, ``U``, ``D``, ``P`` with their line numbers) and pages ``docs/api/**``, and the 2021
reference ``docs/api-reference/*.html`` and ``docs/common-parameters/*.html`` at the
repository's first commits, which carries request and response examples. Where the two
disagree the dialect reads both. ``provenance`` says, field by field, ``documented:`` (the
document and field) or ``assumed:`` (why); ``opslib probe`` checks the assumed points.

In short: every selector is 0-based; failures are business codes in the body with
``error_description``; ``gmt_*`` are epoch milliseconds; pages hold at most 100 records;
``/device/query_record`` has no whole-fleet mode; device and product reads carry their
secrets.

>>> from opslib.dialects.chint import chint_dialect
>>> d = chint_dialect()
>>> d.selectors["login_model"]["password"], d.capabilities.fleet_events
(0, False)
>>> d.provenance["paging.max_page_size"]
'documented: D 131-135, 369-373 (page_size 1..100)'
"""

from __future__ import annotations

from opslib.dialects.base import Capabilities, Dialect, Errors, Paging, Serving, Times, TokenCall

__all__ = ["CHINT_CODES", "CHINT_EVENT_KINDS", "chint_dialect"]

_Y2026 = "2026 docs/specs"
_Y2021 = "2021 docs/api-reference"

# The platform's business codes (2026 docs/api error-code dictionary), each with the opslib
# exception it means. 200 and 0 are success.
CHINT_CODES = {
    # common
    400: "BadRequest",
    401: "AuthenticationError",
    403: "PermissionDenied",
    404: "NotFound",  # path or method not found
    429: "RateLimited",
    460: "BadRequest",  # request parameter error
    500: "ServerError",
    503: "ServerError",
    # authorization
    100001: "AuthenticationError",  # access token expired
    100002: "VerificationFailed",  # authorization code exchange failed
    100003: "AuthenticationError",  # refresh token expired or revoked
    100004: "AuthenticationError",  # token invalidated (password change, revoked grant)
    100005: "AuthenticationError",  # malformed token
    100006: "AuthenticationError",  # invalid openid
    110000: "APIError",  # general error
    # users
    8101: "BadRequest",  # bad phone number
    8102: "VerificationFailed",  # code not usable
    8103: "Conflict",  # phone already registered
    8104: "NotFound",  # user does not exist
    8105: "PermissionDenied",  # user disabled
    8106: "VerificationFailed",  # wrong password
    8107: "NotFound",  # settings do not exist
    8108: "RateLimited",  # SMS: 1 a minute, 5 an hour, 10 a day
    8109: "AuthenticationError",  # bad client_id
    8110: "NotFound",  # product does not exist
    # devices
    8201: "ServerError",  # listing failed
    8202: "NotFound",  # device does not exist
    8203: "NotFound",  # records not found
    8204: "BadRequest",  # bad appkey
    8205: "BadRequest",  # bad MD5
    8206: "BadRequest",  # bad message_id
    8211: "BadRequest",  # bad deletion list
}

# event_type code -> kind. 2026 filters 0 property report, 1 fault and system report
# (D 388-394); the 2021 records add 2 fault (error) and call 1 a system warning.
CHINT_EVENT_KINDS = {0: "property", 1: "fault", 2: "fault"}

_SELECTORS = {
    "login_model": {"password": 0, "sms_code": 1},
    # auth_model names the purpose of a code; 6 verifies one. Sending a code for our
    # code_model purposes: register 3, login 1, reset_password 4.
    "auth_model": {
        "identity": 0,
        "login": 1,
        "unusual_login": 2,
        "register": 3,
        "reset_password": 4,
        "change_profile": 5,
        "verify": 6,
    },
    "code_model": {"sms": 0},
    "update_model": {"change": 0, "reset": 1},
    "user_query_model": {"by_user_id": 0, "by_phone": 1, "by_identity_id": 2},
    "record_query_model": {"device": 0, "user": 1},
    "setting_query_model": {"all": 0, "device": 1, "message": 2},
    "owned": {"shared": 0, "owner": 1},
}

_DEVICE_STATUS = {0: "inactive", 1: "online", 2: "offline", 3: "disabled", 4: "activated"}

_ENUMS = {
    "event_type": {0: "property report", 1: "fault and system report", 2: "fault"},
    "device_status": _DEVICE_STATUS,
    "user_status": dict(_DEVICE_STATUS),
    "product_status": {0: "developing", 1: "released"},
    "net_type": {
        0: "Wi-Fi",
        1: "LoRa",
        2: "GPRS",
        3: "Zigbee",
        4: "Bluetooth",
        5: "Ethernet",
        6: "PLC",
        7: "other",
    },
    "node_type": {0: "device", 1: "gateway"},
    "encrypt_type": {0: "one secret per product", 1: "one secret per device"},
    "vendor_type": {0: "in-house", 1: "partner ecosystem"},
    "popular": {0: "normal", 1: "popular", 2: "recommended"},
    "owned": {0: "shared", 1: "owner"},
}

_REQUIRED = {
    "/user/auth_code": ("client_id", "auth_model", "code_model", "area_code", "phone"),
    "/user/login": ("client_id", "login_model", "area_code", "phone"),
    "/user/register": ("client_id", "auth_code", "area_code", "phone", "password"),
    "/user/update_pwd": ("area_code", "phone", "new_password", "update_model"),
    "/user/update_user_info": (),
    "/user/query": (),
    "/user/update_sys_setting": (),
    "/user/query_sys_setting": ("query_model",),
    "/product/query_category": ("client_id",),
    "/product/query_list_by_category": ("client_id", "category_id"),
    "/product/add": (
        "product_id",
        "product_secret",
        "product_name",
        "category_id",
        "vendor_type",
        "encrypt_type",
        "node_type",
        "status",
        "popular",
    ),
    "/product/delete": ("product_id",),
    "/device/bind": (
        "device_id",
        "mac_addr",
        "sdk_version",
        "version",
        "status",
        "product_id",
        "category_id",
    ),
    "/device/query_by_user": ("user_id", "page_no", "page_size"),
    "/device/update_info": ("device_id", "user_id"),
    "/device/query": ("device_id", "user_id"),
    "/device/query_record": ("user_id", "query_model", "page_no", "page_size"),
}

# -- how opslib's server speaks this dialect over its own core ----------------------------
# Our codes -> theirs in answers (many of ours fold onto one of theirs), theirs -> ours in
# requests (a code not listed is refused with 460).
_NET_OUT = {1: 0, 2: 4, 3: 3, 4: 2, 5: 5}  # Wi-Fi, BLE -> Bluetooth, Zigbee, cellular -> GPRS
_CODES_OUT = {
    # online, offline, command, firmware: reported as system reports (1); property report 0
    "event_type": {1: 1, 2: 1, 3: 0, 4: 1, 5: 1, 6: 1},
    "net_type": _NET_OUT,
    "node_type": {1: 0, 2: 1, 3: 0},  # direct and sub-device are devices, gateway 1
    "encrypt_type": {0: 0, 1: 1, 2: 1},  # none: one secret per product; AES and TLS per device
    "user_status": {1: 4, 2: 3, 3: 3},  # active -> activated; locked, disabled -> disabled
    "product_status": {0: 0, 1: 1, 2: 1},  # retired stays released there
    "vendor_type": {code: code % 2 for code in range(100)},  # in-house / partner ecosystem
}
_CODES_IN = {
    "event_type": {0: 3, 1: 4, 2: 4},  # a fault or system filter reads our alarms
    "net_type": {theirs: ours for ours, theirs in _NET_OUT.items()},
    "node_type": {0: 1, 1: 2},
    "encrypt_type": {0: 0, 1: 1},
    "vendor_type": {0: 0, 1: 1},
    "product_status": {0: 0, 1: 1},
    "popular": {0: 0, 1: 1},  # 2 (recommended) is not stored by our core
}
# Which business code a failure of ours is answered with (the error-code dictionary); the
# first rule that matches wins: (our status, path prefix, text in the message, their code).
_ERROR_RULES = (
    (400, "", "", 460),
    (401, "", "", 100001),
    (404, "", "params.product_id", 8110),
    (404, "", "params.user_id", 8104),
    (404, "", "params.device_id", 8202),
    (404, "/user/", "", 8104),
    (404, "/device/", "", 8202),
    (404, "/product/", "", 8110),
    (405, "", "", 405),
    (409, "/user/register", "", 8103),
    # identity taken, product exists, device bound to another, a reused message_id: the
    # dictionary has no code (110000 is its system's general error), ours is kept
    (409, "", "", 409),
    (413, "", "", 413),
    (422, "", "password", 8106),
    (422, "", "", 8102),
    (429, "/user/auth_code", "", 8108),
    (429, "", "", 429),
    (503, "", "", 503),
)
_TOKEN_ERRORS = {
    "invalid_grant/authorization_code": 100002,
    "invalid_grant/refresh_token": 100003,
    "invalid_grant": 460,
    "invalid_client": 8109,
    "invalid_request": 460,
    "unsupported_grant_type": 460,
}
SERVING = Serving(
    codes_out=_CODES_OUT,
    codes_in=_CODES_IN,
    error_rules=_ERROR_RULES,
    token_errors=_TOKEN_ERRORS,
    over_cap="refuse",
    writes="envelope",
    empty_data="null",
    never=0,
    openid="user_id",
    secret_marker="withheld-by-the-reference-platform",  # noqa: S106 - a marker
)

PROVENANCE = {
    "token.params": "documented: T 83-121 (/token/access: query parameters only)",
    "token.user_id_field": "assumed: openid is 'the unique id of a user or a device' (T 71-74), "
    "so the login answer's user_id is the user id; probe checks it",
    "token.expires_in_unit": "documented: T 67-70 (expires_in seconds, 172800)",
    "errors.signalling": "assumed: no error example is published; HTTP 200 with the code in "
    "the body is likeliest for such APIs, and both are accepted",
    "errors.message_fields": "documented: 2026 docs/api parameter list (error_description)",
    "errors.codes": "documented: 2026 docs/api error-code dictionary (common, authorization, "
    "user 81xx, device 82xx codes); the exception each maps to is opslib's reading",
    "errors.success_codes": "documented: 2026 error-code dictionary (200 success; 0 success "
    "among the authorization codes)",
    "errors.token_expired_codes": "documented: 2026 error-code dictionary (100001 access token "
    "expired, 100004 invalidated, 100005 malformed)",
    "errors.token_refused_codes": "documented: 2026 error-code dictionary (100003 refresh "
    "token expired or revoked, 100002 code exchange failed)",
    "errors.write_success": f"documented: {_Y2021} product-service (add and delete answer the "
    "common envelope with data null, P 228-234, 263-269); a bare string as our spec shows "
    "is accepted too",
    "errors.retry_after": "documented: 2026 docs/api error-code dictionary (8108: SMS at most "
    "1 a minute, 5 an hour, 10 a day); 60 s is the least wait that can clear it",
    "errors.write_failures": "documented: add and delete fail with the common envelope and a "
    "business code (2021 examples), never a bare string",
    "times.gmt_format": f"documented: {_Y2021} examples (gmt_* epoch-ms numbers; a few 12-digit "
    f"typos); {_Y2026} types them as strings without a format: both read",
    "times.epoch_text": "documented: 2021 examples (gmt_* epoch-ms numbers); 2026 types them "
    "as strings: written as numbers, both read",
    "times.zone": "assumed: epoch milliseconds carry no zone; a zone-less string would be "
    "China time, never seen",
    "times.range_unit": f"documented: {_Y2021} device-service query_record example (start/end "
    "in epoch ms; D 374-381 int64)",
    "times.dnd_unit": f"documented: {_Y2021} user-service examples (message_config start/end, "
    "the do-not-disturb window, in epoch seconds; ours are minutes after midnight); that "
    "the time of day in times.zone is meant is assumed",
    "paging.max_page_size": "documented: D 131-135, 369-373 (page_size 1..100)",
    "paging.total": f"assumed: {_Y2021} examples show total beside one page's list; taken as "
    "the records of the whole result, probe checks it",
    "selectors.login_model": "documented: U 168-174 (0 phone + password, 1 phone + SMS code)",
    "selectors.auth_model": "documented: U 43-52 (0..5 the code's purpose, 6 verify a code)",
    "selectors.code_model": "documented: U 53-56 (only 0, SMS)",
    "selectors.update_model": "documented: U 291-297 (0 change, 1 forgotten password)",
    "selectors.user_query_model": "documented: U 386-393 (0 user_id, 1 phone, 2 identity_id; "
    "optional)",
    "selectors.record_query_model": "documented: D 359-365 (0 by device, 1 by user; no "
    "whole-fleet mode)",
    "selectors.setting_query_model": "documented: U 532-539 (0 all, 1 development settings, "
    "2 message settings)",
    "selectors.owned": "documented: D 78-84 (0 shared, 1 owned)",
    "enums.event_type": "documented: D 388-394 (2026: 0 property report, 1 fault and system "
    f"report) and {_Y2021} records (0 info, 1 system warning, 2 fault): both read",
    "enums.device_status": "documented: D 62-71 (0 inactive, 1 online, 2 offline, 3 disabled, "
    "4 activated)",
    "enums.user_status": f"documented: {_Y2021} user-service repeats the device statuses; "
    f"{_Y2026} gives no values",
    "enums.product_status": "documented: P 213-219 (0 developing, 1 released)",
    "enums.net_type": "documented: P 186-198 (0 Wi-Fi .. 7 other)",
    "enums.node_type": "documented: P 206-212 (0 device, 1 gateway)",
    "enums.encrypt_type": "documented: P 199-205 (0 one secret per product, 1 per device)",
    "enums.vendor_type": "documented: P 179-185 (0 in-house, 1 partner ecosystem)",
    "enums.popular": "documented: P 220-227 (0, 1, 2 = recommended)",
    "enums.owned": "documented: D 78-84",
    "event_kinds": "assumed: from enums.event_type; 1 (fault and system report) is read as "
    "fault, the kind the alarm analyses need; no online/offline events exist",
    "required": f"documented: {_Y2026} required lists (D 31-39 bind, D 116-120 query_by_user, "
    "D 197-200 update_info, D 249-252 query, D 346-351 query_record, P 149-159 add, "
    "U 276-280 update_pwd); device_id of /device/query assumed (the device read)",
    "capabilities.fleet_events": "documented: D 359-365 (query_model 0 by device, 1 by user only)",
    "capabilities.fleet_refusal": "assumed: a read of another user's data is refused with an "
    "error code; probe checks it",
    "secrets": f"documented: {_Y2021} examples (device_secret in device reads, product_secret "
    "in product reads)",
    "filters": "documented: D 388-394 (query_record event_type filter: enum [0, 1] only)",
    "serving.codes_out": "assumed: how our core's codes fold onto theirs when opslib's "
    "server speaks this dialect (each target documented in enums.*)",
    "serving.codes_in": "assumed: theirs onto our core's, for requests (each source "
    "documented in enums.*; popular 2 is not stored by our core)",
    "serving.error_rules": "documented: 2026 error-code dictionary (460 parameter error, 8104, "
    "8106, 8108, 8110, 8202, 100001); conflicts other than 8103 have no code there: ours",
    "serving.token_errors": "documented: 2026 error-code dictionary (100002 code exchange "
    "failed, 100003 refresh token expired or revoked, 8109 bad client_id, 460)",
    "serving.over_cap": "documented: D 131-135, 369-373 (page_size maximum 100: refused)",
    "serving.writes": f"documented: {_Y2021} product-service examples (add and delete answer "
    "the common envelope with data null)",
    "serving.empty_data": f"documented: {_Y2021} examples (data null for operations that "
    "return nothing)",
    "serving.never": "documented: U 452-454 (gmt_* typed string or number, never null); 0 for "
    "a moment that never happened is assumed",
    "serving.openid": "documented: T 71-74 (openid, the unique id of a user or a device)",
    "serving.secret_marker": f"documented: {_Y2021} examples (device_secret and product_secret "
    "in reads); our core never sends them, so a marker stands in",
    "other.data_null": f"documented: {_Y2021} examples (data null for operations that return "
    f"nothing; {_Y2026} overview shows {{}}): both read",
    "other.area_code": "documented: 2026 area-number page ('0086' style, up to 5 digits)",
    "other.category_id": "documented: 2026 things model page (categories 0..10, 0 a switch)",
    "other.record_user_selector": f"documented: {_Y2021} names query_record's user selector "
    f"user_id, {_Y2026} user_id_param (D 385-387): both sent",
}


def chint_dialect() -> Dialect:
    """The CHINT smart cloud (``opslib server --dialect chint``)."""
    return Dialect(
        name="chint",
        token=TokenCall(params="query", user_id_field="user_id", expires_in_unit="s"),
        errors=Errors(
            signalling="both",
            message_fields=("error_description", "error_msg", "msg", "message"),
            codes=CHINT_CODES,
            success_codes=frozenset({200, 0}),
            token_expired_codes=frozenset({401, 100001, 100004, 100005}),
            token_refused_codes=frozenset({100002, 100003}),
            write_success={"/product/add": "{product_id}", "/product/delete": "success"},
            retry_after={8108: 60.0},
        ),
        times=Times(
            gmt_format="epoch_ms", zone="Asia/Shanghai", range_unit="ms", dnd_unit="epoch_s"
        ),
        paging=Paging(max_page_size=100, total="records"),
        selectors=_SELECTORS,
        enums=_ENUMS,
        event_kinds=CHINT_EVENT_KINDS,
        required=_REQUIRED,
        filters={"event_type": (0, 1)},
        capabilities=Capabilities(fleet_events=False, fleet_refusal="error"),
        secrets=frozenset({"device_secret", "product_secret"}),
        serving=SERVING,
        provenance=PROVENANCE,
    )
