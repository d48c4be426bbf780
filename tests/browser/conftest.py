"""Headless Chromium (Debian's, never a downloaded one) for the browser tests.

Each test that needs it asks for ``chromium``: a fresh context of a browser launched once a
test file. When /usr/bin/chromium or Playwright is missing, or the browser does not start,
the test fails with the reason: ``make test`` installs chromium first
(``.ci/ensure-chromium``), so a missing browser is a broken set-up, never a pass.
"""

from __future__ import annotations

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


@pytest.fixture(scope="module")
def _browser() -> Iterator[Any]:
    """Chromium, launched once for a test file (about 0.8 s a test less than a launch each)."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: run `make test` (it installs it) or, as root, "
            "`apt-get install -y chromium`"
        )
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        pytest.fail("playwright (python) is not installed: pip install -e '.[dev]'")
    with sync_playwright() as p:
        try:
            browser = p.chromium.launch(
                executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
            )
        except Error as exc:
            pytest.fail(f"{CHROMIUM} did not start: {exc}")
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def chromium(_browser: Any) -> Iterator[Any]:
    """A browser context of the test's own: its own cookies, storage, cache and pages."""
    context = _browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(30_000)
    try:
        yield context
    finally:
        context.close()
