"""The SMS gateway: the only place a verification code ever goes (protocol §11).

The default :class:`OutboxGateway` appends one JSON line per message to
``<db>.sms.jsonl``, which stands in for a real SMS provider on a local platform.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from opslib.server.security import Secret, reveal

__all__ = ["OutboxGateway", "SmsGateway", "SmsMessage", "outbox_path"]


@dataclass(frozen=True)
class SmsMessage:
    """One verification code to deliver."""

    area_code: str
    phone: str
    purpose: int  # opslib.enums.CodeModel
    code: Secret  # reveal() it only to deliver it
    sent_at: int  # epoch ms


class SmsGateway(Protocol):
    """Delivers :class:`SmsMessage`; raising makes the send fail and roll back."""

    def send(self, message: SmsMessage) -> None: ...


def outbox_path(db_path: str | Path) -> Path:
    """The outbox file of the database at ``db_path``.

    Examples
    --------
    >>> outbox_path("/tmp/x.db").name
    'x.db.sms.jsonl'
    """
    return Path(f"{db_path}.sms.jsonl")


class OutboxGateway:
    """Append each message as one JSON line to ``path``.

    Parameters
    ----------
    path
        The outbox file; created on the first message.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    def send(self, message: SmsMessage) -> None:
        line = json.dumps(
            {
                "area_code": message.area_code,
                "phone": message.phone,
                "purpose": message.purpose,
                "code": reveal(message.code),
                "sent_at": message.sent_at,
            }
        )
        with self._lock, self.path.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")
