"""No secret in the locals of a client frame a traceback shows (the
client's side).

Error reporters (Sentry, rich's ``show_locals``, IPython's verbose tracebacks) record the
local variables of every frame of a traceback. The client keeps passwords, codes, the client
secret and tokens as ``opslib.Secret`` (whose repr is masked) up to the JSON or form
encoding of a request. Each failure below walks every frame of ``opslib/client`` in the
raised exception's traceback (and those it was raised from) and looks for the secret in the
repr of every local and of the items of containers.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import pytest
from client.faults import Faults

import opslib

if TYPE_CHECKING:
    from tests.conftest import ServedPlatform

CLIENT_DIR = str(Path(opslib.__file__).parent / "client")


def _texts(value: Any, depth: int = 0) -> Iterator[str]:
    yield repr(value)
    if depth >= 4:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _texts(key, depth + 1)
            yield from _texts(item, depth + 1)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from _texts(item, depth + 1)


def _frames(exc: BaseException | None) -> Iterator[Any]:
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        tb: TracebackType | None = exc.__traceback__
        while tb is not None:
            yield tb.tb_frame
            tb = tb.tb_next
        exc = exc.__cause__ or exc.__context__


def leaks(exc: BaseException, secret: str) -> list[tuple[str, str]]:
    found = []
    checked = 0
    for frame in _frames(exc):
        if not frame.f_code.co_filename.startswith(CLIENT_DIR):
            continue
        checked += 1
        for name, value in frame.f_locals.items():
            if any(secret in text for text in _texts(value)):
                found.append(
                    (f"{Path(frame.f_code.co_filename).name}:{frame.f_code.co_name}", name)
                )
    assert checked > 0  # the failure went through the client
    return found


def test_a_failed_login_holds_no_password(platform: ServedPlatform) -> None:
    password = "wrong-password-7fa1c9"
    with pytest.raises(opslib.VerificationFailed) as info:
        platform.connect(password=password)
    assert leaks(info.value, password) == []


def test_a_refused_token_call_holds_no_client_secret(platform: ServedPlatform) -> None:
    secret = "not-the-client-secret-42b7"
    with pytest.raises(opslib.AuthenticationError) as info:
        platform.connect(client_secret=secret)
    assert leaks(info.value, secret) == []


def test_a_failed_call_holds_no_access_token(platform: ServedPlatform) -> None:
    faults = Faults()
    client = platform.connect(transport=faults)
    client.users.get()
    token = faults.to("/user/query")[-1].body["params"]["access_token"]  # type: ignore[index]
    with pytest.raises(opslib.NotFound) as info:
        client.devices.get("no-such-device-0001")
    assert leaks(info.value, token) == []
    faults.refuse("/device/query", times=None)
    with pytest.raises(opslib.TransportError) as lost:
        client.devices.get("no-such-device-0001")
    assert leaks(lost.value, token) == []
