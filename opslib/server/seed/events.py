"""The event generator: the window's events, one day at a time, so memory stays bounded at
any scale.

Each day mixes the special events planned for it (:mod:`~opslib.server.seed.specials`) with
ordinary ones (property reports, commands and warning alarms) drawn in proportion to each
device's weight and to a day/night cycle (a sinusoid over the local hour, UTC-5), never
outside a device's active span nor inside a downtime episode. A few noisy devices produce
2-5 % of all events each; weekends are 10 % busier.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from opslib.enums import EventType
from opslib.server.seed.arrays import (
    I64,
    FloatArray,
    IntArray,
    ObjArray,
    hex16,
    last_positions,
    obj,
    scramble,
)
from opslib.server.seed.fleet import Fleet
from opslib.server.seed.people import People
from opslib.server.seed.products import Products
from opslib.server.seed.properties import property_json
from opslib.server.seed.scales import DAY_MS, HOUR_MS, LOCAL_UTC_OFFSET_H, MINUTE_MS, Run
from opslib.server.seed.specials import SpecialEvents
from opslib.server.seed.vocabulary import WARNINGS, alarm_table, command_table

__all__ = ["EventStream"]


class EventStream:
    """The rows of the ``events`` table, day by day, and each device's latest event.

    Iterate :meth:`days` once; as it goes, ``last_ts`` and ``last_props`` follow each
    device's latest event and latest property report (the ``devices`` rows need them).

    Parameters
    ----------
    run
        The shared state of this seed.
    products, people, fleet, specials
        What the earlier stages made.

    Attributes
    ----------
    last_ts
        Moment of each device's latest event so far, -1 for none.
    last_props
        Properties JSON of each device's latest property report so far, None for none.
    event_count
        Events yielded so far.
    """

    def __init__(
        self,
        run: Run,
        products: Products,
        people: People,
        fleet: Fleet,
        specials: SpecialEvents,
    ) -> None:
        self.run = run
        self.cats = products.cats
        self.people = people
        self.fleet = fleet
        self.specials = specials
        self.last_ts: IntArray = np.full(fleet.n, -1, dtype=I64)
        self.last_props: ObjArray = np.full(fleet.n, None, dtype=object)
        self.event_count = 0
        self.command_tables = {c.kind: command_table(c.kind) for c in self.cats}
        self.warning_tables = {c.kind: alarm_table(WARNINGS[c.kind], "warning") for c in self.cats}

    def days(self) -> Iterator[Iterator[tuple[Any, ...]]]:
        """Yield one day of event rows at a time (each an iterator of row tuples).

        Returns
        -------
        Iterator
            One iterator of ``events`` rows per day of the window, in time order.
        """
        f, sp, run = self.fleet, self.specials, self.run
        totals, cov = self._day_totals()
        key = np.uint64(run.rng.integers(0, 1 << 63, dtype=np.uint64))
        dev_ids = obj(f.ids)
        owner_ids = np.empty(f.n, dtype=object)
        owner_ids[:] = [self.people.ids[o] if o >= 0 else "" for o in f.owner.tolist()]
        for k in range(run.scale.days):
            cs = run.start + k * DAY_MS
            dev, ts = self._day_bulk(k, int(totals[k]), cov[k])
            etype, props, codes = self._bulk_kinds(dev, ts)
            lo, hi = np.searchsorted(sp.ts, [cs, cs + DAY_MS], side="left")
            dev = np.concatenate([dev, sp.dev[lo:hi]])
            ts = np.concatenate([ts, sp.ts[lo:hi]])
            etype = np.concatenate([etype, sp.type[lo:hi]])
            props = np.concatenate([props, sp.props[lo:hi]])
            codes = np.concatenate([codes, sp.code[lo:hi]])
            order = np.argsort(ts, kind="stable")
            dev, ts, etype, props, codes = (
                dev[order],
                ts[order],
                etype[order],
                props[order],
                codes[order],
            )
            seq = np.arange(self.event_count, self.event_count + len(ts), dtype=np.uint64)
            self.event_count += len(ts)
            ids = hex16(scramble(seq, key), "evt-")
            # Latest moment and latest property report of every device (ts ascending).
            last_dev, last_pos = last_positions(dev)
            self.last_ts[last_dev] = ts[last_pos]
            rep = np.flatnonzero(etype == EventType.PROPERTY_REPORT)
            last_dev, last_pos = last_positions(dev[rep])
            self.last_props[last_dev] = props[rep[last_pos]]
            yield zip(
                ids,
                dev_ids[dev].tolist(),
                owner_ids[dev].tolist(),
                etype.tolist(),
                props.tolist(),
                codes.tolist(),
                ts.tolist(),
                strict=True,
            )

    def _day_totals(self) -> tuple[IntArray, FloatArray]:
        """Ordinary events per day, and each device's coverage of each day (0-1).

        Sets the noisy devices' weights so that each makes its share of all events.
        """
        f, rng = self.fleet, self.run.rng
        days = self.run.scale.days
        cs = self.run.start + np.arange(days, dtype=I64) * DAY_MS
        cov = (
            np.clip(
                np.minimum(f.t1[None, :], cs[:, None] + DAY_MS)
                - np.maximum(f.t0[None, :], cs[:, None]),
                0,
                DAY_MS,
            )
            / DAY_MS
        )
        if len(f.noisy):
            normal = np.ones(f.n, dtype=bool)
            normal[f.noisy] = False
            covered = cov.sum(axis=0)
            w_normal = float((f.weight * covered)[normal].sum())
            share = f.noisy_share / max(1e-9, 1.0 - f.noisy_share.sum())
            f.weight[f.noisy] = share * w_normal / np.maximum(covered[f.noisy], 1e-9)
        weekday = ((cs + LOCAL_UTC_OFFSET_H * HOUR_MS) // DAY_MS + 3) % 7  # 0 = Monday
        week_factor = np.where(weekday >= 5, 1.1, 1.0)
        w_day = (cov * f.weight[None, :]).sum(axis=1) * week_factor
        return rng.multinomial(self.specials.bulk_total, w_day / w_day.sum()).astype(I64), cov

    def _day_bulk(self, k: int, total: int, cov: FloatArray) -> tuple[IntArray, IntArray]:
        """Sample ``total`` (device, ts) pairs in day ``k``: weights, day/night, spans, gaps."""
        f, rng = self.fleet, self.run.rng
        cs = self.run.start + k * DAY_MS
        minute = cs // MINUTE_MS + np.arange(1440)
        hour = ((minute / 60.0) + LOCAL_UTC_OFFSET_H) % 24.0
        intensity = 1.0 + 0.6 * np.cos(2 * np.pi * (hour - 19.0) / 24.0)
        cdf = np.cumsum(intensity)
        cdf /= cdf[-1]
        p = f.weight * cov
        if total == 0 or p.sum() <= 0:
            return np.zeros(0, I64), np.zeros(0, I64)
        p = p / p.sum()
        devs: list[IntArray] = []
        stamps: list[IntArray] = []
        need, barren = total, 0
        while need > 0:
            m = int(need * 1.15) + 64
            dev = rng.choice(f.n, size=m, p=p)
            mins = np.minimum(np.searchsorted(cdf, rng.random(m), side="right"), 1439)
            ts = cs + mins * MINUTE_MS + rng.integers(0, MINUTE_MS, m)
            ok = (ts > f.t0[dev]) & (ts < f.t1[dev])
            inside, _ = self.specials.gaps.contains(dev, ts)
            ok &= ~inside
            idx = np.flatnonzero(ok)[:need]
            devs.append(dev[idx])
            stamps.append(ts[idx])
            need -= len(idx)
            barren = 0 if len(idx) else barren + 1
            if barren > 20:
                raise RuntimeError(f"cannot place events in day {k} of the window")
        return np.concatenate(devs), np.concatenate(stamps)

    def _bulk_kinds(self, dev: IntArray, ts: IntArray) -> tuple[IntArray, ObjArray, ObjArray]:
        """Event type, properties JSON and code of bulk events."""
        f, rng = self.fleet, self.run.rng
        m = len(dev)
        u = rng.random(m)
        a = f.alarm_p[dev]
        etype = np.where(
            u < a,
            int(EventType.ALARM),
            np.where(
                u < a + f.command_p[dev], int(EventType.COMMAND), int(EventType.PROPERTY_REPORT)
            ),
        ).astype(I64)
        props = np.empty(m, dtype=object)
        codes = np.full(m, "", dtype=object)
        kc = f.kind_code[dev]
        for ci, cat in enumerate(self.cats):
            in_cat = kc == ci
            idx = np.flatnonzero(in_cat & (etype == EventType.PROPERTY_REPORT))
            if len(idx):
                reports = property_json(
                    self.run, f, self.specials.gaps, cat.kind, dev[idx], ts[idx]
                )
                props[idx] = obj(reports)
            idx = np.flatnonzero(in_cat & (etype == EventType.COMMAND))
            if len(idx):
                table, w = self.command_tables[cat.kind]
                props[idx] = table[rng.choice(len(table), size=len(idx), p=w)]
            idx = np.flatnonzero(in_cat & (etype == EventType.ALARM))
            if len(idx):
                code_arr, prop_arr, w = self.warning_tables[cat.kind]
                pick = rng.choice(len(code_arr), size=len(idx), p=w)
                props[idx] = prop_arr[pick]
                codes[idx] = code_arr[pick]
        return etype, props, codes
