"""opslib.analysis.users: masked phones, profile and settings tables."""

from __future__ import annotations

import pandas as pd
import pytest

from opslib import analysis
from opslib.client.frames import schema as _schemas

from .frames import T0, typed_frame


@pytest.mark.parametrize(
    ("phone", "masked"),
    [("5550000001", "555*****01"), ("123456", "****56"), ("1234", "**34"), ("", ""), (None, "")],
)
def test_mask_phone(phone: str | None, masked: str) -> None:
    assert analysis.mask_phone(phone) == masked


def test_profile_and_settings_tables() -> None:
    user = typed_frame(
        _schemas.USER,
        [
            {
                "user_id": "u1",
                "area_code": "1",
                "phone": "5550000003",
                "status": 1,
                "gmt_register": T0,
            }
        ],
    )
    masked = analysis.profile_table(user).set_index("field")["value"]
    assert masked["phone"] == "555*****03"
    assert masked["status"] == "active"  # the label under a human name, no code beside it
    assert "status_name" not in masked.index
    assert masked["logout"] == ""
    assert masked["register"] == "2024-05-06 00:00:00 UTC"  # no "+00:00"
    local = analysis.profile_table(analysis.in_zone(user, "Asia/Shanghai")).set_index("field")
    assert local.loc["register", "value"] == "2024-05-06 08:00:00 Asia/Shanghai"
    assert (
        analysis.profile_table(user, mask=False).set_index("field").loc["phone", "value"]
        == "5550000003"
    )
    settings = typed_frame(
        _schemas.SETTINGS,
        [
            {
                "user_id": "u1", "message_config.start": 1320, "message_config.end": 420,
                "message_config.no_disturbing": True, "message_config.recv_sys_notice": False,
            }
        ],
    )  # fmt: skip
    shown = analysis.settings_table(settings).set_index("field")["value"]
    assert shown["do not disturb from"] == "22:00"
    assert shown["do not disturb until"] == "07:00"
    assert shown["do not disturb"] == "yes"  # not "message config no disturbing: True"
    assert shown["system notices"] == "no"


def test_a_missing_number_is_shown_empty_in_both_tables() -> None:
    # Before: NaN (a frame read back from a CSV, or built by hand) showed as "nan" in the
    # profile, and stopped settings_table with "cannot convert float NaN to integer".
    user = pd.DataFrame({"user_id": ["u1"], "unread": [float("nan")]})
    assert analysis.profile_table(user).set_index("field").loc["unread", "value"] == ""
    settings = pd.DataFrame({"message_config.start": [float("nan")], "message_config.end": [60.0]})
    shown = analysis.settings_table(settings).set_index("field")["value"]
    assert (shown["do not disturb from"], shown["do not disturb until"]) == ("", "01:00")
