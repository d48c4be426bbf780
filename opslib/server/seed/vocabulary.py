"""The words and shapes of generated data: names, rooms, device nouns, alarm codes, commands,
property-report JSON templates, and the weighted choice tables built from them.

Nothing here draws random numbers; the stages draw from these tables.
"""

from __future__ import annotations

import numpy as np

from opslib.server.seed.arrays import FloatArray, ObjArray

__all__ = [
    "AVATAR_BASE",
    "CAMERA_JSON",
    "CLIMATE_JSON",
    "CLIMATE_MODES",
    "COMMANDS",
    "COMMAND_SOURCES",
    "COMMAND_VALUES",
    "DEVICE_NOUNS",
    "FAULTS",
    "FIRST_NAMES",
    "GATEWAY_JSON",
    "ICON_BASE",
    "LAST_INITIALS",
    "LIGHTING_JSON",
    "OFFLINE_REASONS",
    "ROOMS",
    "SEEDED_PHONE_BASE",
    "SENSOR_JSON",
    "SOCKET_JSON",
    "WARNINGS",
    "alarm_table",
    "choice_table",
    "command_table",
]

SEEDED_PHONE_BASE = 5_551_000_000
ICON_BASE = "https://cdn.opslib.example/icons"
AVATAR_BASE = "https://cdn.opslib.example/avatars"

FIRST_NAMES = (
    "Alex",
    "Sam",
    "Jordan",
    "Taylor",
    "Morgan",
    "Casey",
    "Riley",
    "Jamie",
    "Avery",
    "Quinn",
    "Maria",
    "James",
    "Linda",
    "Robert",
    "Emma",
    "Noah",
    "Olivia",
    "Liam",
    "Ava",
    "Lucas",
    "Mia",
    "Ethan",
    "Sofia",
    "Mason",
    "Chloe",
    "Logan",
    "Grace",
    "Owen",
    "Zoe",
    "Henry",
)
LAST_INITIALS = "ABCDEFGHIJKLMNOPRSTVWY"
ROOMS = (
    "Living room",
    "Kitchen",
    "Bedroom",
    "Office",
    "Hallway",
    "Garage",
    "Porch",
    "Kids room",
    "Bathroom",
    "Basement",
    "Attic",
    "Garden",
)
DEVICE_NOUNS = {
    "lighting": ("lamp", "ceiling light", "light strip", "bulb"),
    "sensors": ("sensor", "thermometer", "detector"),
    "gateways": ("hub", "gateway"),
    "sockets": ("plug", "socket", "power strip"),
    "cameras": ("camera", "cam"),
    "climate": ("thermostat", "AC", "purifier", "fan"),
}

WARNINGS: dict[str, tuple[tuple[str, str, float], ...]] = {
    # kind -> (code, message, weight)
    "lighting": (("E102", "high temperature", 1.0), ("E103", "weak signal", 3.0)),
    "sensors": (
        ("E101", "low battery", 4.0),
        ("E103", "weak signal", 2.0),
        ("E107", "humidity out of range", 1.0),
    ),
    "gateways": (("E103", "weak signal", 1.0), ("E106", "sub-device unreachable", 3.0)),
    "sockets": (
        ("E102", "high temperature", 1.0),
        ("E103", "weak signal", 2.0),
        ("E104", "overload", 2.0),
    ),
    "cameras": (("E103", "weak signal", 2.0), ("E105", "storage almost full", 2.0)),
    "climate": (
        ("E102", "high temperature", 1.0),
        ("E103", "weak signal", 1.0),
        ("E107", "humidity out of range", 2.0),
    ),
}
FAULTS = (
    ("F201", "hardware failure", 1.0),
    ("F202", "overheat shutdown", 1.0),
    ("F203", "sensor failure", 1.0),
    ("F204", "power supply fault", 2.0),
)
OFFLINE_REASONS = (("heartbeat_timeout", 6.0), ("power_loss", 2.0), ("network_lost", 2.0))
COMMAND_SOURCES = (("app", 0.55), ("automation", 0.25), ("schedule", 0.12), ("voice", 0.08))
COMMAND_VALUES: dict[str, tuple[str, ...]] = {
    "bool": ("true", "false"),
    "pct": tuple(str(5 * k) for k in range(2, 21)),
    "ct": ("2700", "3000", "4000", "5000", "6500"),
    "temp": tuple(f"{18 + k / 2:.1f}" for k in range(17)),
    "sec": ("30", "60", "300", "600"),
    "min": ("15", "30", "60", "120"),
    "mode": ('"cool"', '"heat"', '"auto"', '"fan"'),
    "none": ("",),
}
COMMANDS: dict[str, tuple[tuple[str, str, float], ...]] = {
    "lighting": (
        ("set_power", "bool", 5.0),
        ("set_brightness", "pct", 3.0),
        ("set_color_temp", "ct", 1.0),
    ),
    "sensors": (("set_report_interval", "sec", 1.0),),
    "gateways": (("permit_join", "sec", 2.0), ("reboot", "none", 1.0)),
    "sockets": (("set_power", "bool", 5.0), ("set_timer", "min", 1.0)),
    "cameras": (("snapshot", "none", 3.0), ("set_recording", "bool", 2.0), ("reboot", "none", 0.5)),
    "climate": (
        ("set_power", "bool", 3.0),
        ("set_target_temp", "temp", 4.0),
        ("set_mode", "mode", 1.0),
    ),
}
LIGHTING_JSON = '{"power":%s,"brightness":%d,"color_temp":%d}'
SOCKET_JSON = '{"power":%s,"watts":%.1f,"voltage":%.1f}'
SENSOR_JSON = '{"temperature":%.1f,"humidity":%d,"battery":%d}'
CAMERA_JSON = '{"recording":%s,"motion":%s,"bitrate_kbps":%d}'
CLIMATE_JSON = '{"power":%s,"mode":"%s","target_temp":%.1f,"current_temp":%.1f}'
GATEWAY_JSON = '{"sub_devices":%d,"rssi":%d,"uptime_h":%d}'
CLIMATE_MODES = ("cool", "heat", "auto", "fan")


def choice_table(entries: list[tuple[str, float]]) -> tuple[ObjArray, FloatArray]:
    """Strings and their normalised probabilities, ready for ``rng.choice(len, p=...)``.

    Parameters
    ----------
    entries
        ``(string, weight)`` pairs; the weights need not sum to 1.

    Returns
    -------
    tuple
        The strings as an object array and the weights divided by their sum.
    """
    strings = np.empty(len(entries), dtype=object)
    strings[:] = [s for s, _ in entries]
    weights = np.array([w for _, w in entries], dtype=np.float64)
    return strings, weights / weights.sum()


def command_table(kind: str) -> tuple[ObjArray, FloatArray]:
    """Every command JSON a device of category ``kind`` can receive, with its probability.

    Parameters
    ----------
    kind
        A category kind (``lighting``, ``sensors``, ...), a key of :data:`COMMANDS`.

    Returns
    -------
    tuple
        A :func:`choice_table` over command x source x value.
    """
    entries: list[tuple[str, float]] = []
    for name, value_kind, weight in COMMANDS[kind]:
        values = COMMAND_VALUES[value_kind]
        for source, source_weight in COMMAND_SOURCES:
            for value in values:
                if value_kind == "none":
                    text = f'{{"command":"{name}","source":"{source}"}}'
                else:
                    text = f'{{"command":"{name}","value":{value},"source":"{source}"}}'
                entries.append((text, weight * source_weight / len(values)))
    return choice_table(entries)


def alarm_table(
    codes: tuple[tuple[str, str, float], ...], level: str
) -> tuple[ObjArray, ObjArray, FloatArray]:
    """Alarm codes, their properties JSON at ``level`` and their probabilities.

    Parameters
    ----------
    codes
        ``(code, message, weight)`` rows such as :data:`FAULTS` or a :data:`WARNINGS` entry.
    level
        ``"warning"`` or ``"fault"``.

    Returns
    -------
    tuple
        Codes, properties JSON and probabilities, aligned (object, object, float arrays).
    """
    code_arr = np.empty(len(codes), dtype=object)
    code_arr[:] = [c for c, _, _ in codes]
    props, weights = choice_table(
        [(f'{{"level":"{level}","message":"{m}"}}', w) for _, m, w in codes]
    )
    return code_arr, props, weights
