"""Property reports: the JSON a device of each category sends at a given moment.

Values follow the fleet's local day (lights and plugs on in the evening, a temperature wave
peaking in the afternoon), each device's own parameters (:attr:`Fleet.params`) and, for
gateways, the uptime since their last reconnect.
"""

from __future__ import annotations

import numpy as np

from opslib.server.seed.arrays import I64, IntArray, json_bool, local_hour
from opslib.server.seed.downtime import Gaps
from opslib.server.seed.fleet import Fleet
from opslib.server.seed.scales import DAY_MS, HOUR_MS, Run
from opslib.server.seed.vocabulary import (
    CAMERA_JSON,
    CLIMATE_JSON,
    CLIMATE_MODES,
    GATEWAY_JSON,
    LIGHTING_JSON,
    SENSOR_JSON,
    SOCKET_JSON,
)

__all__ = ["property_json"]


def property_json(
    run: Run, fleet: Fleet, gaps: Gaps, kind: str, dev: IntArray, ts: IntArray
) -> list[str]:
    """Property-report JSON objects of ``kind`` devices at moments ``ts``.

    Parameters
    ----------
    run
        The shared state of this seed (draws from its generator).
    fleet
        The devices (their parameters).
    gaps
        The downtime episodes (a gateway's uptime restarts at each reconnect).
    kind
        The category kind of every device in ``dev``.
    dev, ts
        Device indices and moments (epoch ms), aligned.

    Returns
    -------
    list of str
        One JSON object per device.
    """
    rng, prm = run.rng, fleet.params
    m = len(dev)
    h = local_hour(ts)
    evening = (h >= 17.5) | (h < 0.5)
    if kind == "lighting":
        on_p = 0.12 + 0.75 * evening + 0.35 * ((h >= 6.0) & (h < 8.5))
        power = json_bool(rng.random(m) < np.minimum(on_p, 0.95))
        bright = (rng.integers(2, 21, m) * 5).tolist()
        ct = prm["color_temp"][dev].tolist()
        return [LIGHTING_JSON % v for v in zip(power, bright, ct, strict=True)]
    if kind == "sockets":
        on = rng.random(m) < 0.55 + 0.25 * evening
        watts = np.where(
            on, prm["rated_w"][dev] * rng.uniform(0.25, 1.0, m), rng.uniform(0.3, 0.8, m)
        )
        volts = 120.0 + rng.normal(0.0, 1.2, m)
        return [
            SOCKET_JSON % v for v in zip(json_bool(on), watts.tolist(), volts.tolist(), strict=True)
        ]
    if kind == "sensors":
        wave = np.sin(2 * np.pi * (h - 9.0) / 24.0)
        temp = prm["temp_base"][dev] + 2.5 * wave + rng.normal(0.0, 0.3, m)
        hum = np.clip(prm["hum_base"][dev] - 8.0 * wave + rng.normal(0.0, 2.0, m), 10, 95)
        days = (ts - run.start) / DAY_MS
        batt = np.clip(prm["batt0"][dev] - prm["drain"][dev] * days, 1, 100)
        return [
            SENSOR_JSON % v
            for v in zip(
                temp.tolist(), hum.astype(I64).tolist(), batt.astype(I64).tolist(), strict=True
            )
        ]
    if kind == "cameras":
        rec = json_bool(rng.random(m) < 0.85)
        motion = json_bool(rng.random(m) < 0.1 + 0.3 * ((h >= 7.0) & (h < 22.0)))
        rate = (prm["bitrate"][dev] * rng.uniform(0.8, 1.05, m)).astype(I64).tolist()
        return [CAMERA_JSON % v for v in zip(rec, motion, rate, strict=True)]
    if kind == "climate":
        power = json_bool(rng.random(m) < 0.5 + 0.3 * evening)
        modes = np.array(CLIMATE_MODES, dtype=object)[prm["mode"][dev]].tolist()
        target = prm["target"][dev]
        current = target + rng.normal(0.0, 1.2, m)
        return [
            CLIMATE_JSON % v
            for v in zip(power, modes, target.tolist(), current.tolist(), strict=True)
        ]
    # gateways: uptime since the last reconnect (or boot)
    last_up = gaps.last_up(dev, ts, prm["boot"][dev])
    uptime = np.maximum(ts - last_up, 0) // HOUR_MS
    rssi = prm["rssi"][dev] + rng.integers(-3, 4, m)
    return [
        GATEWAY_JSON % v
        for v in zip(prm["sub_count"][dev].tolist(), rssi.tolist(), uptime.tolist(), strict=True)
    ]
