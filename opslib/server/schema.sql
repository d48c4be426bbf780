-- opslib reference platform, schema version 4.
-- Phone numbers are stored as validated: digits, area code and phone without leading zeros.
-- Moments are INTEGER epoch milliseconds UTC; the API formats them as 'YYYY-MM-DD HH:MM:SS'.
-- Secrets (passwords, codes, tokens, client/device/product secrets) are stored only as hashes.

CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS clients (
    client_id   TEXT PRIMARY KEY,
    secret_hash TEXT NOT NULL,              -- sha256 hex
    name        TEXT NOT NULL DEFAULT '',
    gmt_create  INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS users (
    user_id        TEXT PRIMARY KEY,
    area_code      TEXT NOT NULL,
    phone          TEXT NOT NULL,
    password_hash  TEXT NOT NULL,           -- argon2id
    role           INTEGER NOT NULL DEFAULT 1,  -- opslib.enums.Role
    status         INTEGER NOT NULL DEFAULT 1,  -- opslib.enums.UserStatus
    identity_id    TEXT UNIQUE,             -- NULL when unset
    nick_name      TEXT NOT NULL DEFAULT '',
    avatar         TEXT NOT NULL DEFAULT '',
    network_ssid   TEXT NOT NULL DEFAULT '',
    network_pw     TEXT NOT NULL DEFAULT '',
    gmt_register   INTEGER NOT NULL,
    gmt_modified   INTEGER NOT NULL,
    gmt_last_login INTEGER,
    gmt_logout     INTEGER,
    UNIQUE (area_code, phone)
);

CREATE TABLE IF NOT EXISTS settings (
    user_id            TEXT PRIMARY KEY REFERENCES users(user_id),
    dev_page_size      INTEGER NOT NULL DEFAULT 20,
    recv_sys_notice    INTEGER NOT NULL DEFAULT 1,
    recv_device_notice INTEGER NOT NULL DEFAULT 1,
    no_disturbing      INTEGER NOT NULL DEFAULT 0,
    dnd_start          INTEGER NOT NULL DEFAULT 1320,  -- minutes after midnight
    dnd_end            INTEGER NOT NULL DEFAULT 420,
    unread_notice_num  INTEGER NOT NULL DEFAULT 0,
    gmt_modified       INTEGER NOT NULL
) WITHOUT ROWID;

-- One live SMS code per (phone, purpose); a resend replaces it.
CREATE TABLE IF NOT EXISTS sms_codes (
    area_code  TEXT NOT NULL,
    phone      TEXT NOT NULL,
    purpose    INTEGER NOT NULL,            -- opslib.enums.CodeModel
    code_hash  TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    attempts   INTEGER NOT NULL DEFAULT 0,  -- wrong verifications
    used_at    INTEGER,
    PRIMARY KEY (area_code, phone, purpose)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS sms_sends (
    area_code TEXT NOT NULL,
    phone     TEXT NOT NULL,
    sent_at   INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sms_sends_phone ON sms_sends (area_code, phone, sent_at);

-- Wrong passwords, by phone and by the client address they came from (added in schema 4,
-- hence last). The indexes of schema 4 are created by store.init_schema, after a
-- conversion that may refuse and must then change nothing: login_failures_address
-- (area_code, phone, address, at), login_failures_at (at), sms_sends_time (sent_at).
CREATE TABLE IF NOT EXISTS login_failures (
    area_code TEXT NOT NULL,
    phone     TEXT NOT NULL,
    at        INTEGER NOT NULL,
    address   TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS login_failures_phone ON login_failures (area_code, phone, at);

-- Authorization codes from /user/login and /user/register; single use, 10 minutes.
CREATE TABLE IF NOT EXISTS auth_codes (
    code_hash  TEXT PRIMARY KEY,
    client_id  TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    family_id  TEXT NOT NULL,               -- every token issued from this code shares it
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at    INTEGER
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS tokens (
    token_hash   TEXT PRIMARY KEY,
    kind         TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
    user_id      TEXT NOT NULL,
    client_id    TEXT NOT NULL,
    family_id    TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    revoked_at   INTEGER,
    rotated_at   INTEGER,                   -- refresh: when it was exchanged for a new pair
    replay_blob  BLOB                       -- refresh: the new pair, encrypted with a key derived from this token
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tokens_family ON tokens (family_id);
CREATE INDEX IF NOT EXISTS tokens_user ON tokens (user_id);

CREATE TABLE IF NOT EXISTS categories (
    category_id   INTEGER PRIMARY KEY,
    category_name TEXT NOT NULL,
    category_icon TEXT NOT NULL DEFAULT ''
);

CREATE TABLE IF NOT EXISTS products (
    product_id   TEXT PRIMARY KEY,
    secret_hash  TEXT NOT NULL,
    product_name TEXT NOT NULL,
    product_icon TEXT NOT NULL DEFAULT '',
    category_id  INTEGER NOT NULL REFERENCES categories(category_id),
    vendor_type  INTEGER NOT NULL DEFAULT 0,
    net_type     INTEGER NOT NULL,
    encrypt_type INTEGER NOT NULL DEFAULT 0,
    node_type    INTEGER NOT NULL,
    status       INTEGER NOT NULL DEFAULT 0,
    popular      INTEGER NOT NULL DEFAULT 0,
    gmt_create   INTEGER NOT NULL,
    gmt_modified INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS products_category ON products (category_id, product_id);

CREATE TABLE IF NOT EXISTS devices (
    device_id     TEXT PRIMARY KEY,
    secret_hash   TEXT NOT NULL,            -- sha256 hex of device_secret
    product_id    TEXT NOT NULL REFERENCES products(product_id),
    category_id   INTEGER NOT NULL,
    mac_addr      TEXT NOT NULL DEFAULT '',
    sdk_version   TEXT NOT NULL DEFAULT '',
    version       TEXT NOT NULL DEFAULT '',
    net_addr      TEXT NOT NULL DEFAULT '',
    status        INTEGER NOT NULL DEFAULT 0,  -- opslib.enums.DeviceStatus
    properties    TEXT NOT NULL DEFAULT '{}',  -- JSON object, latest reported
    nick_name     TEXT NOT NULL DEFAULT '',
    gmt_create    INTEGER NOT NULL,
    gmt_last_seen INTEGER
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS devices_product ON devices (product_id);

-- Who a device is bound to: at most one owner (owned=1) and any number of shared users.
CREATE TABLE IF NOT EXISTS bindings (
    device_id     TEXT NOT NULL REFERENCES devices(device_id),
    user_id       TEXT NOT NULL REFERENCES users(user_id),
    owned         INTEGER NOT NULL,
    group_id      INTEGER NOT NULL DEFAULT 0,
    is_sub_device INTEGER NOT NULL DEFAULT 0,
    gmt_bind      INTEGER NOT NULL,
    PRIMARY KEY (device_id, user_id)
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS bindings_one_owner ON bindings (device_id) WHERE owned = 1;
CREATE INDEX IF NOT EXISTS bindings_user_order ON bindings (user_id, gmt_bind, device_id);
CREATE INDEX IF NOT EXISTS bindings_fleet_order ON bindings (owned, gmt_bind, device_id);

-- Device event records. ts is epoch ms; gmt_create is ts shown to the second.
CREATE TABLE IF NOT EXISTS events (
    event_id   TEXT NOT NULL,
    device_id  TEXT NOT NULL,
    user_id    TEXT NOT NULL,               -- the device's owner when the event happened ('' if unbound)
    event_type INTEGER NOT NULL,
    properties TEXT NOT NULL DEFAULT '{}',
    code       TEXT NOT NULL DEFAULT '',
    ts         INTEGER NOT NULL,
    -- The record as the API sends it (protocol §6.8), JSON text written by SQLite once, when
    -- the event is stored: strings through json_quote, the stored properties as they are,
    -- gmt_create by datetime() (NULL past year 9999, shown as null) and the ts extension.
    -- A page is then these texts joined (store/events.py) instead of rendered on every
    -- read, which cost more SQL time per page (docs/performance.md).
    wire       TEXT GENERATED ALWAYS AS (format(
        '{"device_id":%s,"user_id":%s,"event_id":%s,"event_type":%d,"properties":%s,"code":%s,"gmt_create":%s,"ts":%d}',
        json_quote(device_id), json_quote(user_id), json_quote(event_id), event_type, properties,
        json_quote(code), coalesce('"' || datetime(ts / 1000, 'unixepoch') || '"', 'null'), ts
    )) STORED
);
-- Indexes are created by store.create_event_indexes() (after a bulk seed, for speed):
--   events_order  (ts, event_id)
--   events_type   (event_type, ts, event_id)
--   events_device (device_id, ts, event_id)
--   events_user   (user_id, ts, event_id)

-- Events per 10-minute bucket and type, so a deep page seeks instead of skipping rows.
CREATE TABLE IF NOT EXISTS event_counts (
    bucket     INTEGER NOT NULL,            -- ts // 600000
    event_type INTEGER NOT NULL,
    n          INTEGER NOT NULL,
    PRIMARY KEY (bucket, event_type)
) WITHOUT ROWID;

-- Idempotent writes: the first response of (caller, operation, message_id), kept 24 h.
CREATE TABLE IF NOT EXISTS idempotency (
    caller      TEXT NOT NULL,
    operation   TEXT NOT NULL,
    message_id  TEXT NOT NULL,
    fingerprint TEXT NOT NULL,              -- sha256 of the canonical params, access_token excluded
    status      INTEGER NOT NULL,
    body        BLOB NOT NULL,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (caller, operation, message_id)
) WITHOUT ROWID;
