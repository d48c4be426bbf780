"""Compressed answers: the real app answers in the coding the request accepts, above a size."""

from __future__ import annotations

import uuid
import zlib
from typing import Any

import httpx
import orjson
import pytest
import zstandard

from opslib.server import compression

from .helpers import Api


def read(api: Api, accept: str | None, page_size: int = 50) -> httpx.Response:
    """Alice's events as the app answers them, given ``Accept-Encoding`` (None: no header)."""
    world = api.world
    params: dict[str, Any] = {
        "access_token": api.token("alice"),
        "query_model": 1,
        "device_id": "dev-a1",
        "start": world.events_start,
        "end": world.events_end,
        "page_size": page_size,
    }
    body = {"message_id": str(uuid.uuid4()), "user_id": world["alice"].user_id, "params": params}
    request = api.client.build_request("POST", "/device/query_record", json=body)
    if accept is None:
        del request.headers["Accept-Encoding"]
    else:
        request.headers["Accept-Encoding"] = accept
    response = api.client.send(request, stream=True)
    response.raw = b"".join(response.iter_raw())  # type: ignore[attr-defined]
    response.close()
    return response


def plain(api: Api) -> bytes:
    response = read(api, "identity")
    assert "content-encoding" not in response.headers
    return response.raw  # type: ignore[attr-defined, no-any-return]


@pytest.mark.parametrize(
    ("accept", "coding"),
    [
        ("gzip", "gzip"),
        ("zstd", "zstd"),
        ("gzip, deflate, zstd", "zstd"),  # httpx's own offer: zstd first on a tie
        ("gzip;q=1, zstd;q=0.5", "gzip"),
        ("*", "zstd"),
        ("br, gzip", "gzip"),
    ],
)
def test_a_large_answer_comes_in_the_coding_asked_for(api: Api, accept: str, coding: str) -> None:
    expected = plain(api)
    response = read(api, accept)
    assert response.status_code == 200
    assert response.headers["content-encoding"] == coding
    assert response.headers["vary"] == "Accept-Encoding"
    raw = response.raw  # type: ignore[attr-defined]
    assert len(raw) < len(expected) / 3
    decoded = (
        zlib.decompress(raw, wbits=31)
        if coding == "gzip"
        else zstandard.ZstdDecompressor().decompress(raw)
    )
    assert orjson.loads(decoded)["data"] == orjson.loads(expected)["data"]


@pytest.mark.parametrize("accept", [None, "", "identity", "br", "zstd;q=0, gzip;q=0", "*;q=0"])
def test_no_coding_the_platform_speaks_means_the_answer_as_it_is(
    api: Api, accept: str | None
) -> None:
    response = read(api, accept)
    assert response.status_code == 200
    assert "content-encoding" not in response.headers
    assert orjson.loads(response.raw)["data"]["total"] == 50  # type: ignore[attr-defined]


def test_a_small_answer_goes_as_it_is(api: Api) -> None:
    response = read(api, "gzip, zstd", page_size=1)
    assert len(response.raw) < compression.MIN_COMPRESS_BYTES  # type: ignore[attr-defined]
    assert "content-encoding" not in response.headers
    assert orjson.loads(response.raw)["error_code"] == 200  # type: ignore[attr-defined]


def test_a_failure_asked_for_compressed_is_plain_json(api: Api) -> None:
    r = api.client.post(
        "/device/query_record",
        content=b"{not json",
        headers={"Content-Type": "application/json", "Accept-Encoding": "zstd, gzip"},
    )
    assert r.status_code == 400
    assert "content-encoding" not in r.headers
    assert r.json()["error_code"] == 400


def test_an_unknown_coding_is_refused_by_compress() -> None:
    with pytest.raises(ValueError, match="coding must be one of zstd, gzip, got 'br'"):
        compression.compress(b"x" * 5000, "br")
