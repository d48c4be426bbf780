"""Downtime episodes: a device goes down (an offline event or a fault alarm), later comes
back (an online event), and has no events in between.

Episodes are kept sorted by a key ``(device << SHIFT) | (ts - window start)``, so that whether a
moment falls inside one is a single ``searchsorted`` (hence the window's 49-day limit).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from opslib.server.seed.arrays import I64, BoolArray, IntArray
from opslib.server.seed.fleet import Fleet
from opslib.server.seed.scales import DAY_MS, MINUTE_MS, Run

# A search key is (device << SHIFT) | ms since the window's start: 40 bits of offset hold
# windows up to 34 years, the other 23 bits millions of devices.
SHIFT = 40

__all__ = ["Gaps", "plan_gaps"]


@dataclass(frozen=True)
class Gaps:
    """Closed downtime episodes, sorted by device then start, never overlapping.

    Attributes
    ----------
    dev, start, end
        Device, moment it went down and moment it came back (epoch ms) of each episode.
    key_s, key_e
        ``(dev << SHIFT) | (start - origin)`` and the same for ``end``: the search keys.
    origin
        Start of the event window.
    """

    dev: IntArray
    start: IntArray
    end: IntArray
    key_s: IntArray
    key_e: IntArray
    origin: int

    def contains(self, dev: IntArray, ts: IntArray) -> tuple[BoolArray, IntArray]:
        """Which (device, ts) fall inside a closed downtime episode (ends included).

        Parameters
        ----------
        dev, ts
            Devices and moments, aligned.

        Returns
        -------
        tuple
            A mask of the pairs inside an episode and, for those, the episode's index
            (-1 elsewhere).
        """
        if not len(self.key_s):
            return np.zeros(len(dev), dtype=bool), np.full(len(dev), -1, dtype=I64)
        rel = np.clip(ts - self.origin, 0, (1 << SHIFT) - 1)
        key = (dev << SHIFT) | rel
        i = np.searchsorted(self.key_s, key, side="right") - 1
        inside = (i >= 0) & (key <= self.key_e[np.maximum(i, 0)])
        return inside, np.where(inside, i, -1)

    def last_up(self, dev: IntArray, ts: IntArray, boot: IntArray) -> IntArray:
        """When each device last came back before ``ts``, or ``boot`` when it never went down.

        Parameters
        ----------
        dev, ts
            Devices and moments, aligned.
        boot
            The fallback moment of each pair.

        Returns
        -------
        numpy.ndarray
            Epoch ms, one per pair.
        """
        key = (dev << SHIFT) | np.clip(ts - self.origin, 0, (1 << SHIFT) - 1)
        if not len(self.key_e):
            return boot
        i = np.searchsorted(self.key_e, key, side="right") - 1
        valid = (i >= 0) & (self.dev[np.maximum(i, 0)] == dev)
        return np.where(valid, self.end[np.maximum(i, 0)], boot)


def plan_gaps(run: Run, fleet: Fleet) -> tuple[Gaps, BoolArray]:
    """Draw the downtime episodes inside each device's ``[t0, t1)``.

    The count per device is Poisson(flakiness x days), thinned when the episodes' two events
    each would exceed 15 % of the scale's events. An episode must end a minute before the
    device's ``t1`` and begin more than a minute after its previous one ended.

    Parameters
    ----------
    run
        The shared state of this seed.
    fleet
        The devices.

    Returns
    -------
    tuple
        The episodes and, aligned with them, whether each one begins with a fault alarm
        (else an offline event).
    """
    rng, f, start = run.rng, fleet, run.start
    in_window = f.ever_online & ~f.dormant
    span = np.where(in_window, f.t1 - f.t0, 0)
    flaky = rng.lognormal(np.log(0.12), 0.8, f.n)
    counts = rng.poisson(flaky * span / DAY_MS)
    budget = int(0.15 * run.scale.events / 2)
    if counts.sum() > budget:
        counts = rng.binomial(counts, budget / counts.sum())
    g_dev = np.repeat(np.arange(f.n), counts)
    g_start = (
        f.t0[g_dev]
        + 1_000
        + (rng.random(len(g_dev)) * np.maximum(span[g_dev] - 5 * MINUTE_MS, 0)).astype(I64)
    )
    g_dur = np.clip(rng.lognormal(np.log(15 * MINUTE_MS), 1.2, len(g_dev)), 30_000, 2 * DAY_MS)
    g_end = g_start + g_dur.astype(I64)
    g_fault = rng.random(len(g_dev)) < 0.12
    ok = g_end < f.t1[g_dev] - MINUTE_MS
    g_dev, g_start, g_end, g_fault = g_dev[ok], g_start[ok], g_end[ok], g_fault[ok]
    key_s = (g_dev << SHIFT) | (g_start - start)
    order = np.argsort(key_s, kind="stable")
    g_dev, g_start, g_end, g_fault = g_dev[order], g_start[order], g_end[order], g_fault[order]
    key_s = key_s[order]
    key_e = (g_dev << SHIFT) | (g_end - start + MINUTE_MS)
    if len(key_s):
        prev_end = np.concatenate([[-1], np.maximum.accumulate(key_e)[:-1]])
        keep = key_s > prev_end
        g_dev, g_start, g_end, g_fault = g_dev[keep], g_start[keep], g_end[keep], g_fault[keep]
    gaps = Gaps(
        dev=g_dev,
        start=g_start,
        end=g_end,
        key_s=(g_dev << SHIFT) | (g_start - start),
        key_e=(g_dev << SHIFT) | (g_end - start),
        origin=start,
    )
    return gaps, g_fault
