"""Session tokens, invite codes, public account ids and password hashing."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import secrets
from concurrent.futures import ThreadPoolExecutor

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


_password_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="argon2")
"""Argon2 runs here, never on the event loop, and one at a time: a flood of sign-ins then waits
its turn instead of taking every core away from the tables."""


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


@functools.cache
def _dummy_hash() -> str:
    """A real hash of a random password, verified for unknown accounts so that they cost the
    same work as known ones (no telling which account ids exist by the answer's speed)."""
    return _hasher.hash(secrets.token_urlsafe(16))


def _check(password_hash: str | None, password: str) -> bool:
    if password_hash is None:
        verify_password(_dummy_hash(), password)
        return False
    return verify_password(password_hash, password)


async def check_password(password_hash: str | None, password: str) -> bool:
    """Verify off the event loop; `None` (unknown account, or no password set) does the same work
    against a dummy hash and answers False."""
    return await asyncio.get_running_loop().run_in_executor(_password_pool, _check, password_hash, password)


async def hash_password_async(password: str) -> str:
    return await asyncio.get_running_loop().run_in_executor(_password_pool, hash_password, password)
