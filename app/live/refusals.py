"""How the table refuses a person's message: an error code the socket sends back."""

from __future__ import annotations

from typing import Any


class ActionRejected(Exception):
    """An action refused with a WebSocket error code: stale, illegal, malformed, forbidden or
    take_back_refused; `ja` is the reason in Japanese where there is one."""

    def __init__(self, code: str, message: str, ja: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.ja = ja


def check_fields(match_id: Any, seat: Any, version: Any) -> None:
    """A person's message names a match, a seat and the version it answers, as integers."""
    if not isinstance(match_id, int) or isinstance(match_id, bool):
        raise ActionRejected("malformed", "'match_id' must be the id of the match you were sent")
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise ActionRejected("malformed", "'seat' must be a seat number")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ActionRejected("malformed", "'version' must be the state version you saw")
