"""Deterministic generator of demo data for the reference platform (``opslib seed``).

The same ``seed_value`` and ``until`` always give byte-identical table contents: every
random choice, every id and every timestamp comes from one
``numpy.random.default_rng(seed_value)`` drawn in a fixed order, and nothing reads the clock
but the default of ``until``.

What it writes (every scale):

- the demo client, the ops account (role 2), the admin account (role 3) and a plain demo user
  with about ten devices and their events, with the credentials of :mod:`opslib.server.demo`;
  the other users have phones ``5551000000 + n`` and the demo user password. **This is demo
  data**: argon2id is slow on purpose (~50 ms a hash), so each *distinct* password is hashed
  once, with a salt drawn from the generator, and the hash string is shared by every seeded
  user with that password. A real platform never shares salts;
- a settings row for every user;
- categories (lighting, sensors, gateways, sockets & plugs, cameras, climate) whose
  products have realistic network, node, encryption, status and popularity spreads;
- devices with MAC addresses, SDK and firmware versions (most on the latest firmware, rolled
  out during the window, a tail on older ones), network addresses, a latest-state
  ``properties`` object matching their last property report, and ``gmt_last_seen`` equal to
  their last event; about 3 % never came online (no events, ``gmt_last_seen`` NULL) and 1 %
  are unbound stock;
- bindings: one owner per bound device, about 10 % also shared with another user;
- events over the last ``days`` ending at ``until``: a day/night cycle (a sinusoid over the
  local hour, UTC-5), a few noisy devices with 2-5 % of all events each, downtime episodes
  (an offline event or a fault alarm, later an online event, nothing in between), warning
  alarms, commands and a firmware rollout. A device's ``status`` is the one its events imply
  under protocol §6.19 (online → 1, offline → 2, ``F`` alarm → 3).

Events are generated one day at a time, so memory stays bounded at any scale.

The stages, in the order they draw from the generator (each module one job):

=================  ==========================================================
``scales``         :class:`Scale`, :data:`SCALES`, time units, the shared ``Run``
``vocabulary``     names, rooms, device nouns, alarm codes, commands, JSON templates
``arrays``         array types and small vectorised helpers (ids, JSON booleans)
``products``       1. categories and products
``people``         2. users and settings
``fleet``          3. devices: product, owner, binding time, status, activity
``identity``       4. MAC, SDK, network address, nick name
``downtime``       5. downtime episodes (called by ``specials``)
``specials``       5. activations, final downs, the firmware rollout
``events``         6. ordinary events day by day, merged with the special ones
``properties``     property-report JSON (events and device rows)
``rows``           7. device rows (latest state), 8. bindings
``database``       :func:`seed_database`: the stages and the bulk load
``command``        :func:`seed_command`: ``opslib seed``
=================  ==========================================================

The public API is ``__all__`` below (``summary_lines`` stays importable too); the modules
are internal and may change.
"""

from opslib.server.seed.command import seed_command
from opslib.server.seed.command import summary_lines as summary_lines  # importable, not in __all__
from opslib.server.seed.database import DatabaseNotEmptyError, seed_database
from opslib.server.seed.scales import SCALES, Scale

__all__ = ["SCALES", "DatabaseNotEmptyError", "Scale", "seed_command", "seed_database"]
