"""Build a small platform world through the store functions (no seed generator needed).

Users, a client, categories, products, devices, bindings and events, with known ids.
Password hashes are argon2id at the cheapest parameters, one per password
(tests/cheap_passwords.py): the platform verifies them as any other, in microseconds.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

import orjson
from cheap_passwords import cheap_hash

from opslib.enums import Role, UserStatus
from opslib.server import demo, security, store
from opslib.server.store import devices, events, products, tokens, users

BUCKET_MS = 600_000


@dataclass(frozen=True)
class Account:
    name: str
    user_id: str
    phone: str
    password: str
    role: int


@dataclass
class World:
    """What :func:`build_world` created."""

    db: Path
    now: int
    client_id: str = demo.CLIENT_ID
    client_secret: str = demo.CLIENT_SECRET
    area_code: str = demo.AREA_CODE
    accounts: dict[str, Account] = field(default_factory=dict)
    device_secret: str = "device-secret-1"
    events_start: int = 0
    events_end: int = 0

    def __getitem__(self, name: str) -> Account:
        return self.accounts[name]


ACCOUNTS = (
    ("ops", "u-ops", demo.OPS_PHONE, demo.OPS_PASSWORD, Role.OPS),
    ("admin", "u-admin", demo.ADMIN_PHONE, demo.ADMIN_PASSWORD, Role.ADMIN),
    ("alice", "u-alice", demo.USER_PHONE, demo.USER_PASSWORD, Role.USER),
    ("bob", "u-bob", "5550000004", "bob-password-1", Role.USER),
    ("locked", "u-locked", "5550000005", "locked-password", Role.USER),
)

# device_id -> (owner, product_id, gmt_bind offset in ms)
DEVICES = {
    "dev-a1": ("u-alice", "p-lamp", 1000),
    "dev-a2": ("u-alice", "p-plug", 2000),
    "dev-b1": ("u-bob", "p-lamp", 3000),
    "dev-free": (None, "p-lamp", 0),
}


def build_world(db: Path, *, now: int, events_per_device: int = 0) -> World:
    """Create the world in ``db`` (schema included) and return its description.

    ``events_per_device`` events are spread over the 3 hours before ``now`` for each bound
    device (fleet paging crosses several 10-minute buckets).
    """
    world = World(db=db, now=now)
    conn = store.connect(db)
    try:
        store.init_schema(conn)
        with store.transaction(conn):
            _fill(conn, world, events_per_device)
    finally:
        conn.close()
    return world


def _fill(conn: sqlite3.Connection, world: World, events_per_device: int) -> None:
    now = world.now
    tokens.insert_client(
        conn,
        client_id=world.client_id,
        secret_hash=security.sha256_hex(world.client_secret),
        name="demo",
        now=now,
    )
    for name, user_id, phone, password, role in ACCOUNTS:
        users.insert_user(
            conn,
            user_id=user_id,
            area_code=world.area_code,
            phone=phone,
            password_hash=cheap_hash(password),
            role=role,
            status=UserStatus.LOCKED if name == "locked" else UserStatus.ACTIVE,
            now=now,
            nick_name=name,
        )
        world.accounts[name] = Account(name, user_id, phone, password, role)
    products.insert_category(conn, category_id=1, category_name="Lighting", category_icon="i1")
    products.insert_category(conn, category_id=2, category_name="Power", category_icon="i2")
    products.insert_category(conn, category_id=3, category_name="Empty")
    for product_id, category_id in (("p-lamp", 1), ("p-plug", 2), ("p-spare", 2)):
        products.insert_product(
            conn,
            product={
                "product_id": product_id,
                "secret_hash": security.sha256_hex("product-secret"),
                "product_name": product_id.title(),
                "category_id": category_id,
                "net_type": 1,
                "node_type": 1,
            },
            now=now,
        )
    for device_id, (owner, product_id, offset) in DEVICES.items():
        devices.insert_device(
            conn,
            device={
                "device_id": device_id,
                "secret_hash": security.sha256_hex(world.device_secret),
                "product_id": product_id,
                "category_id": 1 if product_id == "p-lamp" else 2,
                "properties": '{"power": "on"}',
            },
            now=now,
        )
        if owner is not None:
            devices.insert_binding(
                conn,
                device_id=device_id,
                user_id=owner,
                owned=1,
                group_id=0,
                is_sub_device=False,
                now=now - 10_000 + offset,
            )
    world.events_start = now - 3 * 3600_000
    world.events_end = now
    rows: list[events.EventRow] = []
    for index, (device_id, (owner, _, _)) in enumerate(DEVICES.items()):
        if owner is None:
            continue
        span = world.events_end - world.events_start
        for n in range(events_per_device):
            ts = world.events_start + (n * span) // max(events_per_device, 1) + index * 7
            props = orjson.dumps({"n": n, "device": device_id}).decode()
            rows.append((f"e-{device_id}-{n:06d}", device_id, owner, 1 + n % 6, props, "", ts))
    if rows:
        events.insert_events(conn, rows=rows, bucket_ms=BUCKET_MS)
