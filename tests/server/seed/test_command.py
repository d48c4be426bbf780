"""``opslib seed``: what the command prints, and a bad ``--until`` refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from opslib.server import demo
from opslib.server.seed import seed_command


def test_seed_command_prints_counts_and_credentials(tmp_path: Path) -> None:
    lines: list[str] = []
    code = seed_command(
        tmp_path / "c.db",
        scale="small",
        seed_value=5,
        until="2025-06-01T12:00:00Z",
        out=lines.append,
    )
    assert code == 0
    text = "\n".join(lines)
    assert "60 devices" in text
    assert "400 events" in text
    for secret in (demo.CLIENT_SECRET, demo.OPS_PASSWORD, demo.ADMIN_PASSWORD, demo.USER_PHONE):
        assert secret in text
    assert "2025-06-01T12:00:00+00:00" in text


def test_seed_command_rejects_a_bad_until(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert seed_command(tmp_path / "c.db", scale="small", until="yesterday-ish") == 2
    assert "ISO 8601" in capsys.readouterr().err
    assert not (tmp_path / "c.db").exists()
    # Seeded in 1960, its times were before 1970, which no read of the platform reaches.
    assert seed_command(tmp_path / "c.db", scale="small", until="1971-06-01") == 2
    assert capsys.readouterr().err == (
        "opslib seed: until 1971-06-01T00:00:00+00:00: the seeded history reaches 1000 days "
        "before it, into the time before 1970; give a later until\n"
    )
    assert seed_command(tmp_path / "c.db", scale="small", seed_value=-5) == 2
    assert capsys.readouterr().err == "opslib seed: seed value -5: give an integer of 0 or more\n"
    assert not (tmp_path / "c.db").exists()


def test_seed_command_refuses_a_db_it_cannot_seed_and_leaves_it_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert seed_command(tmp_path, scale="small") == 2
    assert f"--db '{tmp_path}': a directory, not a database file" in capsys.readouterr().err
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database\n")
    assert seed_command(notes, scale="small") == 2
    assert f"--db '{notes}': cannot open it: file is not a database" in capsys.readouterr().err
    assert notes.read_text() == "not a database\n"
    a_file_dir = notes / "c.db"
    assert seed_command(a_file_dir, scale="small") == 2
    assert f"--db '{a_file_dir}': cannot open it:" in capsys.readouterr().err
