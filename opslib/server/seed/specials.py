"""The special events: activations, downtime episodes, final downs and the firmware rollout.

These are the events that change a device's status or firmware; they are planned for the
whole window before any ordinary event, which then avoids the downtime episodes. A device's
``status`` is the one its events imply under protocol §6.19 (online → 1, offline → 2, ``F``
alarm → 3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from opslib.enums import DeviceStatus, EventType
from opslib.server.seed.arrays import I64, BoolArray, FloatArray, IntArray, ObjArray, obj
from opslib.server.seed.downtime import Gaps, plan_gaps
from opslib.server.seed.fleet import Fleet
from opslib.server.seed.products import Products
from opslib.server.seed.scales import HOUR_MS, Run
from opslib.server.seed.vocabulary import FAULTS, OFFLINE_REASONS, alarm_table, choice_table

__all__ = ["SpecialEvents", "plan_special_events"]


@dataclass(frozen=True)
class SpecialEvents:
    """The special events of the window, sorted by time, and what they imply.

    Attributes
    ----------
    dev, ts, type, props, code
        Device index, moment, event type, properties JSON and alarm code of each event.
    gaps
        The downtime episodes (ordinary events avoid them).
    firmware
        Each device's firmware version after the rollout.
    bulk_total
        How many ordinary events remain for the scale's total.
    """

    dev: IntArray
    ts: IntArray
    type: IntArray
    props: ObjArray
    code: ObjArray
    gaps: Gaps
    firmware: list[str]
    bulk_total: int


def plan_special_events(run: Run, products: Products, fleet: Fleet) -> SpecialEvents:
    """Draw the downtime episodes, the firmware rollout and the final downs.

    Parameters
    ----------
    run
        The shared state of this seed.
    products
        The categories (their firmware releases).
    fleet
        The devices.

    Returns
    -------
    SpecialEvents
        The events sorted by time, the episodes, the firmware and the ordinary events' total.

    Raises
    ------
    ValueError
        The scale has so few events that the special ones use them all.
    """
    rng, f, s = run.rng, fleet, run.scale
    in_window = f.ever_online & ~f.dormant
    gaps, g_fault = plan_gaps(run, fleet)
    firmware, up_dev, up_ts, up_props = _firmware_rollout(run, products, fleet, gaps)

    # Final downs (offline devices: an offline event; faulty ones: a fault alarm).
    fin_dev = np.flatnonzero(in_window & (f.status != 1))
    fin_fault = f.status[fin_dev] == DeviceStatus.FAULT
    act_dev = np.flatnonzero(in_window & (f.bind >= run.start))

    fault_table = alarm_table(FAULTS, "fault")
    off_table = choice_table([(f'{{"reason":"{r}"}}', w) for r, w in OFFLINE_REASONS])
    gs_type, gs_props, gs_code = _downs(rng, g_fault, fault_table, off_table)
    fin_type, fin_props, fin_code = _downs(rng, fin_fault, fault_table, off_table)
    n_end, n_act = len(gaps.dev), len(act_dev)
    sp_dev = np.concatenate([act_dev, gaps.dev, gaps.dev, fin_dev, up_dev])
    sp_ts = np.concatenate([f.t0[act_dev], gaps.start, gaps.end, f.t1[fin_dev], up_ts[up_dev]])
    sp_type = np.concatenate(
        [
            np.full(n_act, int(EventType.ONLINE), I64),
            gs_type,
            np.full(n_end, int(EventType.ONLINE), I64),
            fin_type,
            np.full(len(up_dev), int(EventType.FIRMWARE_UPGRADE), I64),
        ]
    )
    sp_props = np.concatenate(
        [
            np.full(n_act, '{"reason":"activation"}', dtype=object),
            gs_props,
            np.full(n_end, '{"reason":"reconnect"}', dtype=object),
            fin_props,
            obj(up_props),
        ]
    )
    sp_code = np.concatenate(
        [
            np.full(n_act, "", dtype=object),
            gs_code,
            np.full(n_end, "", dtype=object),
            fin_code,
            np.full(len(up_dev), "", dtype=object),
        ]
    )
    order = np.argsort(sp_ts, kind="stable")
    bulk_total = s.events - len(order)
    if bulk_total <= 0:
        raise ValueError(f"scale {s.name!r} has too few events for its devices")
    return SpecialEvents(
        dev=sp_dev[order],
        ts=sp_ts[order],
        type=sp_type[order],
        props=sp_props[order],
        code=sp_code[order],
        gaps=gaps,
        firmware=firmware,
        bulk_total=bulk_total,
    )


def _firmware_rollout(
    run: Run, products: Products, fleet: Fleet, gaps: Gaps
) -> tuple[list[str], IntArray, IntArray, list[str]]:
    """Firmware: releases per category, the last one rolled out 40 % into the window.

    Returns each device's firmware, the upgraded devices, every device's (candidate) upgrade
    moment and the upgrade events' properties.
    """
    rng, f, n = run.rng, fleet, fleet.n
    in_window = f.ever_online & ~f.dormant
    dev_all = np.arange(n)
    release = run.start + int(0.4 * run.window)
    n_rel = np.array([len(c.firmware) for c in products.cats])[f.kind_code]
    back = np.minimum(rng.choice(3, size=n, p=[0.75, 0.2, 0.05]) + 1, n_rel - 1)
    prior = n_rel - 1 - back
    eligible = in_window & (f.bind < release) & (f.t1 > release + HOUR_MS)
    n_elig = max(1, int(eligible.sum()))
    p_up = min(0.8, 0.05 * run.scale.events / n_elig)
    up = eligible & (rng.random(n) < p_up)
    up_ts = release + rng.exponential(0.1 * run.window, n).astype(I64)
    inside, gap_i = gaps.contains(dev_all, up_ts)
    up_ts = np.where(inside, gaps.end[np.maximum(gap_i, 0)] + 5_000, up_ts)
    inside, _ = gaps.contains(dev_all, up_ts)
    up &= ~inside & (up_ts < f.t1 - 1_000) & (up_ts > f.t0)
    shipped = np.where(f.ever_online, f.bind, f.created) >= release
    latest = up | shipped
    fw_index = np.where(latest, n_rel - 1, prior)
    fw_names = [c.firmware for c in products.cats]
    firmware = [
        fw_names[c][v] for c, v in zip(f.kind_code.tolist(), fw_index.tolist(), strict=True)
    ]
    up_dev = np.flatnonzero(up)
    # "version" is what /device/report reads (protocol §6.19); "from"/"to" for people.
    up_props = []
    for d in up_dev.tolist():
        old, new = fw_names[f.kind_code[d]][prior[d]], fw_names[f.kind_code[d]][n_rel[d] - 1]
        up_props.append(f'{{"from":"{old}","to":"{new}","version":"{new}"}}')
    return firmware, up_dev, up_ts, up_props


def _downs(
    rng: np.random.Generator,
    fault: BoolArray,
    fault_table: tuple[ObjArray, ObjArray, FloatArray],
    off_table: tuple[ObjArray, FloatArray],
) -> tuple[IntArray, ObjArray, ObjArray]:
    """Type, properties and code of down events: a fault alarm where ``fault``, else offline."""
    fault_codes, fault_props, fault_w = fault_table
    off_props, off_w = off_table
    k = len(fault)
    fi = rng.choice(len(fault_codes), size=k, p=fault_w)
    oi = rng.choice(len(off_props), size=k, p=off_w)
    types = np.where(fault, int(EventType.ALARM), int(EventType.OFFLINE)).astype(I64)
    props = np.where(fault, fault_props[fi], off_props[oi])
    codes = np.where(fault, fault_codes[fi], "")
    return types, props.astype(object), codes.astype(object)
