"""Room codes: five characters people can read aloud and type on a phone without confusion."""

from __future__ import annotations

import hashlib
import secrets

#: No 0/O or 1/I: they look alike on screens and in handwriting.
ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
LENGTH = 5


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def normalize(raw: str) -> str | None:
    """The canonical code for what someone typed (case and spaces ignored), or None."""
    code = raw.strip().upper().replace(" ", "").replace("-", "")
    if len(code) != LENGTH or any(c not in ALPHABET for c in code):
        return None
    return code


def from_key(key: str, attempt: int) -> str:
    """The ``attempt``-th code for a room-creation key: the same key gives the same codes."""
    digest = hashlib.sha256(f"{key}:{attempt}".encode()).digest()
    number = int.from_bytes(digest[:8], "big")
    chars = []
    for _ in range(LENGTH):
        number, index = divmod(number, len(ALPHABET))
        chars.append(ALPHABET[index])
    return "".join(chars)
