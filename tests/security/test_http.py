"""HTTP-level answers: a wrong method, a missing access token (issue #24, items 8 and 9)."""

from __future__ import annotations

import pytest
from server.helpers import Api

from opslib.server.routes import ROUTES


@pytest.mark.parametrize("path", [r.path for r in ROUTES])
def test_a_405_says_which_method_is_allowed(api: Api, path: str) -> None:
    for method in ("GET", "PUT", "DELETE", "TRACE"):
        r = api.client.request(method, path)
        assert r.status_code == 405
        assert r.headers["Allow"] == "POST"  # RFC 9110 §15.5.6
        assert r.json()["error_code"] == 405
