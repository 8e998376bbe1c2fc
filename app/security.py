"""Session tokens, invite codes, public account ids and password hashing."""

from __future__ import annotations

import hashlib
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

SESSION_COOKIE = "session"
SESSION_MAX_AGE = 400 * 24 * 3600  # browsers cap cookie lifetimes at about 400 days

_hasher = PasswordHasher()
# Base32 without look-alike characters (no 0/O, 1/I/L), so an account id can be read aloud.
_ACCOUNT_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"


def new_session_token() -> str:
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """What we store for a session token: a plain SHA-256 suffices for 256 random bits."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_invite_code() -> str:
    """128 random bits: unguessable, and short enough for a link."""
    return secrets.token_urlsafe(16)


def new_account_id() -> str:
    """A short public sign-in id like `K7QM-2XPD`."""
    chars = "".join(secrets.choice(_ACCOUNT_ALPHABET) for _ in range(8))
    return f"{chars[:4]}-{chars[4:]}"


def normalize_account_id(text: str) -> str:
    """Accept the id typed loosely: any case, with or without the dash or spaces."""
    chars = "".join(ch for ch in text.upper() if ch.isalnum())
    return f"{chars[:4]}-{chars[4:]}" if len(chars) == 8 else text.strip().upper()


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False
