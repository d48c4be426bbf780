"""``"chint"``: the CHINT smart cloud, the commercial platform whose public API our
interface is. ``opslib server --dialect chint`` speaks it.

Every value comes from its published reference (repository ``chintiot/chintiot.github.io``),
cited in ``provenance`` with line numbers:

- ``T``, ``U``, ``D``, ``P`` and lines: the 2026 OpenAPI documents
  ``docs/specs/{token,user,device,product}-service.yaml`` (commit ``d258678``);
- ``2021 <page>.html`` and lines: the 2021 reference, ``docs/api-reference/<page>.html``
  and ``docs/common-parameters/<page>.html`` as last revised in 2021 (commit ``2448769``),
  which carries the request and response examples
  (``tests/dialects/golden/chint/*.json`` hold them, each with its source);
- the 2026 pages ``docs/api/**`` and ``docs/reference/*.html`` are one line each: they are
  named beside the 2021 page they repeat.

Where the two disagree the dialect reads both. ``provenance`` says, field by field,
``documented:`` (the documents and their lines) or ``assumed:`` (why); ``opslib probe``
checks the assumed points a platform shows (not ``serving.*``, opslib's own server's, nor
``interpretations.*``, readings of the reference only a side effect would test: an SMS
sent, another user's events).

In short: every selector is 0-based; failures are business codes in the body with
``error_description``; ``gmt_*`` are epoch milliseconds; pages hold at most 100 records
and ``total`` counts records; ``/device/query_record`` has no whole-fleet mode; device and
product reads carry their secrets.

>>> from opslib.dialects.chint import chint_dialect
>>> d = chint_dialect()
>>> d.selectors["login_model"]["password"], d.capabilities.fleet_events
(0, False)
>>> d.provenance["paging.total"].split(" (")[0]
'documented: D 162-164, 408-410'
"""

from __future__ import annotations

from opslib.dialects.base import Dialect
from opslib.dialects.sections import Capabilities, Errors, Paging, Serving, Times, TokenCall

__all__ = ["CHINT_CODES", "CHINT_EVENT_KINDS", "chint_dialect"]

# The platform's business codes (its error-code dictionary: 2021 code-dict.html 196-431,
# repeated by the 2026 docs/reference/code-dict.html), each with the opslib exception it
# means. 200 and 0 are success.
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
    "token.params": "documented: T 82-121 (/token/access: every parameter in: query); 2021 "
    "token-service.html 291-304 (the request examples are query strings)",
    "token.user_id_field": "documented: U 200-202 (the login answer's data.user_id, 用户 ID) is "
    "the common request's user_id (U 692-695, 用户 ID): one name, one meaning; 2021 "
    "user-service.html 476-489 (the login example's user_id); openid (T 71-74) is not it",
    "token.expires_in_unit": "documented: T 67-70, 142-145 (expires_in in seconds, 172800); "
    "2021 token-service.html 393-395 (过期时间时长(秒)), 362-368 (the example)",
    "errors.signalling": "assumed: no failure example is published (2021 or 2026); HTTP 200 "
    "with the code in the body (the common response, D 453-468) is likeliest, and both are "
    "read",
    "errors.message_fields": "documented: 2021 param-list.html 198-201 (error_description; "
    "the 2026 parameter list page repeats it); error_msg, msg and message are read after it",
    "errors.codes": "documented: 2021 code-dict.html 196-243 (common), 265-303 "
    "(authorization), 325-376 (users, 81xx), 398-431 (devices, 82xx), the same tables as the "
    "2026 code-dict page; the exception each maps to is opslib's reading",
    "errors.success_codes": "documented: 2021 code-dict.html 196-199 (200 success), 265-268 "
    "(0 success among the authorization codes); D 457-460 (error_code 200 is success)",
    "errors.token_expired_codes": "documented: 2021 code-dict.html 206-211 (401 request auth "
    "error), 270-273 (100001 access token expired), 285-288 (100004 invalidated), 290-293 "
    "(100005 malformed)",
    "errors.token_refused_codes": "documented: 2021 code-dict.html 275-278 (100002 code "
    "exchange failed), 280-283 (100003 refresh token expired or revoked)",
    "errors.write_success": "documented: 2021 product-service.html 609-613 (add), 675-679 "
    "(delete): the common envelope with data null; P 228-234, 263-269 (2026: the common "
    "response); a bare string as our spec shows is accepted too",
    "errors.retry_after": "documented: 2021 code-dict.html 360-366 (8108: SMS at most 1 a "
    "minute, 5 an hour, 10 a day); 60 s is the least wait that can clear it",
    "errors.write_failures": "documented: P 228-234, 263-269 (add and delete answer the common "
    "response, P 397-412: error_code, message_id, data), never a bare string; no failure "
    "example is published",
    "times.gmt_format": "documented: 2021 device-service.html 533-535, 773-775, 1051-1053, "
    "user-service.html 514-516, 958-972, product-service.html 487-491 (gmt_* long, "
    "时间戳(毫秒)), every example a 13-digit number but device-service.html 418, 697 "
    "(149968121600, 12-digit typos); D 515-517, 540-542, U 206-208, 443-454, P 456-461 type "
    "them string without a format: both read",
    "times.epoch_text": "documented: 2021 device-service.html 395-439, 680-699, 966-994, "
    "user-service.html 476-489, 880-900 (gmt_* numbers in every example); D 515-517, 540-542, "
    "U 443-454 (2026: typed string): written as numbers, both read",
    "times.zone": "assumed: epoch milliseconds carry no zone; a zone-less string would be "
    "China time, never seen",
    "times.range_unit": "documented: 2021 device-service.html 882-896 (query_record example: "
    "start 1499681215000, end 1499681216000, epoch ms); D 374-381 (int64, no unit)",
    "times.dnd_unit": "documented: 2021 user-service.html 992-1004, 1129-1146 (message_config "
    "start/end 1508314232, 1543563423, 1543592223: epoch seconds), 1051-1059 (long, "
    "免打扰开始时间戳); U 492-499, 571-578 (int64, no unit); that the time of day in "
    "times.zone is meant is assumed",
    "paging.max_page_size": "documented: D 131-135, 369-373 (page_size 1..100); 2021 "
    "device-service.html 374, 933 (大于等于1，小于等于100)",
    "paging.total": "documented: D 162-164, 408-410 (total 总条数, the number of records); 2021 "
    "device-service.html 456-458, 1011-1013 (云端总数, the records held in the cloud)",
    "selectors.login_model": "documented: U 168-174 (0 phone + password, 1 phone + SMS code)",
    "selectors.auth_model": "documented: U 41-52 (0..5 the code's purpose, 6 verify a code); "
    "which purpose a login or reset code takes: interpretations.auth_model",
    "selectors.code_model": "documented: U 53-56 (only 0, SMS)",
    "selectors.update_model": "documented: U 291-297 (0 change, 1 forgotten password)",
    "selectors.user_query_model": "documented: U 386-393 (0 user_id, 1 phone, 2 identity_id), "
    "U 380-381 (optional: only access_token is required)",
    "selectors.record_query_model": "documented: D 359-365 (0 by device, 1 by user; no "
    "whole-fleet mode)",
    "selectors.setting_query_model": "documented: U 532-539 (0 all, 1 development settings, "
    "2 message settings), U 553-558 (the development settings are dev_config, ours 3)",
    "selectors.owned": "documented: D 78-84 (0 shared, 1 owned)",
    "enums.event_type": "documented: D 388-394 (2026: 0 property report, 1 fault and system "
    "report) and 2021 device-service.html 1039-1041 (records: 0 info, 1 system warning, "
    "2 fault): both read",
    "enums.device_status": "documented: D 62-71 (0 inactive, 1 online, 2 offline, 3 disabled, "
    "4 activated)",
    "enums.user_status": "documented: 2021 user-service.html 941-944 (the device statuses "
    "repeated); U 437-439 (2026) gives no values",
    "enums.product_status": "documented: P 213-219 (0 developing, 1 released)",
    "enums.net_type": "documented: P 186-198 (0 Wi-Fi .. 7 other)",
    "enums.node_type": "documented: P 206-212 (0 device, 1 gateway)",
    "enums.encrypt_type": "documented: P 199-205 (0 one secret per product, 1 per device)",
    "enums.vendor_type": "documented: P 179-185 (0 in-house, 1 partner ecosystem)",
    "enums.popular": "documented: P 220-227 (0 normal, 1 popular, 2 recommended)",
    "enums.owned": "documented: D 78-84 (0 shared, 1 owned)",
    "event_kinds": "assumed: from enums.event_type; 1 (fault and system report) is read as "
    "fault, the kind the alarm analyses need; no online/offline events exist",
    "required": "documented: U 31-36 auth_code, U 100-105 register, U 159-163 login, "
    "U 276-280 update_pwd, U 525-527 query_sys_setting, P 31-33 query_category, P 90-93 "
    "query_list_by_category, P 149-159 add, P 253-255 delete, D 31-39 bind, D 116-120 "
    "query_by_user, D 197-200 update_info, D 249-251 query, D 346-351 query_record "
    "(access_token left to the session); device_id of /device/query is assumed (the device "
    "read; D 259-261 and 2021 device-service.html 671-675 mark it optional)",
    "capabilities.fleet_events": "documented: D 359-365 (query_model 0 by device, 1 by user only)",
    "capabilities.fleet_refusal": "assumed: a read of another user's data is refused with an "
    "error code; probe checks it",
    "secrets": "documented: 2021 device-service.html 395-439, 680-699 (device_secret in the "
    "device reads), product-service.html 354-398 (product_secret in a category's products); "
    "D 476-478, P 420-422",
    "filters": "documented: D 388-394 (query_record event_type filter: enum [0, 1] only)",
    "serving.codes_out": "assumed: how our core's codes fold onto theirs when opslib's "
    "server speaks this dialect (each target documented in enums.*)",
    "serving.codes_in": "assumed: theirs onto our core's, for requests (each source "
    "documented in enums.*; popular 2 is not stored by our core)",
    "serving.error_rules": "documented: 2021 code-dict.html 230-233 (460 parameter error), "
    "335-338 (8103), 340-343 (8104), 350-353 (8106), 360-366 (8108), 373-376 (8110), 403-406 "
    "(8202), 270-273 (100001); conflicts other than 8103 have no code there: ours",
    "serving.token_errors": "documented: 2021 code-dict.html 275-278 (100002 code exchange "
    "failed), 280-283 (100003 refresh token expired or revoked), 368-371 (8109 bad "
    "client_id), 230-233 (460)",
    "serving.over_cap": "documented: D 131-135, 369-373 (page_size maximum 100: refused)",
    "serving.writes": "documented: 2021 product-service.html 609-613, 675-679 (add and delete "
    "answer the common envelope with data null)",
    "serving.empty_data": "documented: 2021 device-service.html 299-303, 613-617, "
    "user-service.html 689-693, 785-789, 1064-1068 (data null for operations that return "
    "nothing)",
    "serving.never": "assumed: U 443-454 type a user's gmt_* as strings, not nullable (2021 "
    "user-service.html 958-972: long), so a moment that never happened is not null; 0 says it",
    "serving.openid": "documented: T 71-74, 146-149 (openid, the unique id of a user or a "
    "device: the user's id)",
    "serving.secret_marker": "documented: 2021 device-service.html 395-439, product-service.html "
    "354-398 (device_secret and product_secret in reads); our core never sends them, so a "
    "marker stands in",
    "other.data_null": "documented: 2021 device-service.html 299-303, product-service.html "
    "609-613 and the other examples (data null for operations that return nothing); D "
    "465-468 (data nullable); the 2026 overview page shows {}: both read",
    "other.area_code": "documented: 2021 area-number.html 180-759 ('0086' style, 3 to 6 "
    "digits: 007 to 001808); the 2026 area-number page lists 3 to 5",
    "other.category_id": "documented: 2021 things-model.html 187-235 (categories 0..10, 0 a "
    "switch); P 176-178 and 2021 product-service.html 571-574 (an integer on /product/add, "
    "sent as one whatever type the caller gives), D 88-90, 506-508 and 2021 "
    "device-service.html 291-294 (a string on devices)",
    "other.record_user_selector": "documented: 2021 device-service.html 952-956 (query_record "
    "names its user selector user_id, required when query_model is 1), D 385-387 (2026: "
    "user_id_param) beside a required user_id (D 348, 356-358): both sent",
    "interpretations.auth_model": "assumed: U 41-52 name no purpose 'login' or 'reset "
    "password'; a login code is sent with 1 (登录确认, login confirmation), a reset code with "
    "4 (修改密码, password change); register 3 and verify 6 are documented, 0, 2 and 5 are "
    "never sent",
    "interpretations.record_user_id": "assumed: /device/query_record's required params.user_id "
    "(D 348, 356-358, 用户 ID) is the selected user when one is selected (query_model 1), as "
    "the 2021 reference reads it (device-service.html 952-956), else the caller (the common "
    "request's user_id, D 442-445); 2026 does not say which",
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
