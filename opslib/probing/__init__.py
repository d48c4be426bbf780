"""``opslib probe``: learn a platform's dialect with reads only, and write it as a profile.

The probe logs in and asks what can be asked safely: the same reads a client makes, a
few of them with a nonexistent id, a bogus token or a page of 1000. It never writes (no
add, bind, update, register or SMS). Each finding says what it is, how sure the probe is
(``high``: seen directly; ``medium``: inferred; ``low``: not observable, the base
dialect's value kept) and what it saw. The result's ``.dialect`` goes to
``opslib.connect(dialect=...)``; ``.to_toml(profile)`` is the section to paste into
``config.toml``.

Every request is written by a candidate dialect's :class:`~opslib.protocol.Codec` (the
base dialect with what has been learned, or with one hypothesis changed: the window in
seconds, a fleet read without the caller's ``user_id``), to the path the table of
operations gives; the answers are read raw (:mod:`opslib.probing.wire`). What it learns,
in order, one module a step:

1. the token call (:mod:`~opslib.probing.login`): the spec's query string, else a form
   body (each after a fresh login); ``expires_in``'s unit; whether ``openid`` is the login
   answer's ``user_id``;
2. the fleet (:mod:`~opslib.probing.fleet`): whether a whole-fleet read answers with
   devices, and whether a refusal is an error or an empty success;
3. errors (:mod:`~opslib.probing.errors`): from reads of a device and a user that do not
   exist, a bad page size and a bogus access token: HTTP status or body, the codes, the
   message field; a bogus refresh token shows what a refused refresh looks like;
4. times (:mod:`~opslib.probing.times`): the ``gmt_*`` format from records and from the
   login answer, and the zone of zone-less times from ``gmt_last_login`` against the
   answer's ``Date`` header; the unit of ``start``/``end``: the same 30 days counted in ms
   and in s;
5. paging (:mod:`~opslib.probing.paging`): one page of 1000 and one of 1 against the
   totals: the page cap, and whether ``total`` counts records or pages;
6. event kinds (:mod:`~opslib.probing.fleet`): each event_type code's total against the
   total of all, so every event the platform holds has a code the dialect gives a kind.

Then it names the built-in dialect every finding agrees with (a dialect that reads errors
both ways agrees with either) and, for each point that dialect's provenance marks
``assumed``, says whether a finding checked it; ``.unchecked`` lists those none did
(:mod:`~opslib.probing.matching`).

>>> result = opslib.probe("https://ops.example.com", client_id="app", client_secret="s",
...     area_code="1", phone="5550000001", password="...")  # doctest: +SKIP
>>> print(result.to_toml("plant"))  # doctest: +SKIP
"""

from __future__ import annotations

from opslib.probing.result import Finding, ProbeResult
from opslib.probing.run import probe, probe_command

__all__ = ["Finding", "ProbeResult", "probe", "probe_command"]
