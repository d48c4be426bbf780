"""Headless Chromium (Debian's, never a downloaded one) for the browser tests.

Each test that needs it asks for ``chromium``. When /usr/bin/chromium or Playwright is
missing, or the browser does not start, the test fails with the reason: ``make test``
installs chromium first (``.ci/ensure-chromium``), so a missing browser is a broken set-up,
never a pass.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.parent == Path(__file__).parent:
            item.add_marker(pytest.mark.browser)


@pytest.fixture
def chromium(tmp_path: Path) -> Iterator[Any]:
    """A Chromium browser context with a fresh profile in the test's tmp dir."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: run `make test` (it installs it) or, as root, "
            "`apt-get install -y chromium`"
        )
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        pytest.fail("playwright (python) is not installed: pip install -e '.[dev]'")
    profile = tmp_path / "chromium-profile"
    with sync_playwright() as p:
        try:
            context = p.chromium.launch_persistent_context(
                str(profile),
                executable_path=str(CHROMIUM),
                args=CHROMIUM_ARGS,
                headless=True,
                viewport={"width": 1280, "height": 900},
            )
        except Error as exc:
            pytest.fail(f"{CHROMIUM} did not start: {exc}")
        context.set_default_timeout(30_000)
        try:
            yield context
        finally:
            context.close()
    shutil.rmtree(profile, ignore_errors=True)
