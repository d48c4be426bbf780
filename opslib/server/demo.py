"""Fixed credentials of the seeded demo platform (printed by ``opslib server --seed``).

They are public on purpose: the demo and test platforms are local and seeded with fake data.
Never seed a platform reachable by others with them.
"""

from __future__ import annotations

CLIENT_ID = "opslib-demo"
CLIENT_SECRET = "opslib-demo-secret"  # noqa: S105 - public demo credential
AREA_CODE = "1"

OPS_PHONE = "5550000001"
OPS_PASSWORD = "ops-demo-pass"  # noqa: S105
ADMIN_PHONE = "5550000002"
ADMIN_PASSWORD = "admin-demo-pass"  # noqa: S105
USER_PHONE = "5550000003"  # a plain user with devices and events
USER_PASSWORD = "user-demo-pass"  # noqa: S105

# Every other seeded user's password (phones 5551000000 + n).
SEEDED_USER_PASSWORD = "user-demo-pass"  # noqa: S105
