"""Expected commit races between server processes, told apart from real failures.

When two processes serve one match, both may try to commit the next action; the database lets
exactly one win (`UNIQUE (match_id, seq)` and the version check). The loser is normal operation:
it rebuilds the match from the log and tells the sender to retry. That deserves one INFO line,
not an ERROR with a traceback that would hide real failures among hundreds of expected ones.
"""

from __future__ import annotations

import logging

from psycopg import errors as pg_errors
from sqlalchemy.exc import IntegrityError

from app.store.matches import VersionConflict


def lost_race(exc: BaseException) -> bool:
    if isinstance(exc, VersionConflict):
        return True
    return isinstance(exc, IntegrityError) and isinstance(exc.orig, pg_errors.UniqueViolation)


def log_commit_failure(log: logging.Logger, exc: BaseException, message: str, *args: object) -> None:
    """INFO in one line for a lost race, ERROR with the traceback for anything else."""
    if lost_race(exc):
        log.info(message + " (another process committed first: %s)", *args, type(exc).__name__)
    else:
        log.error(message, *args, exc_info=exc)
