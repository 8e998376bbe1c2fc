"""Sane bounds on what a host may type into a room's options, whatever the game allows.

The engine validates each game's options; these bounds come first so that no option can ask
for a match that never ends (`hands` = 10^9) or a number no table needs."""

from __future__ import annotations

from typing import Any

from app.errors import Invalid

BIGINT_MAX = 2**63 - 1
"""Ids are PostgreSQL bigints: a request naming anything larger is refused before any query."""

MAX_HANDS = 100
"""More hands than any evening of play; the seeds' longest default is 20."""
MAX_OPTION_NUMBER = 1000
"""Every other number in the options (points, sizes, jokers) stays within ±1000."""


def check_option_bounds(options: dict[str, Any]) -> None:
    hands = options.get("hands")
    if isinstance(hands, int | float) and not isinstance(hands, bool) and hands > MAX_HANDS:
        # (the engine refuses fewer than one hand with its own message)
        raise Invalid(f"at most {MAX_HANDS} hands per match", f"ハンド数は{MAX_HANDS}までです")
    for key, value in options.items():
        for number in _numbers(value):
            if not -MAX_OPTION_NUMBER <= number <= MAX_OPTION_NUMBER:
                raise Invalid(
                    f"option {key!r} is out of range (at most {MAX_OPTION_NUMBER} in size)",
                    f"設定 {key!r} の値が範囲外です（大きさ{MAX_OPTION_NUMBER}まで）",
                )


def _numbers(value: Any) -> list[float]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float):
        return [value]
    if isinstance(value, list):
        return [n for item in value for n in _numbers(item)]
    if isinstance(value, dict):
        return [n for item in value.values() for n in _numbers(item)]
    return []


AWAY_GRACE_MIN, AWAY_GRACE_MAX, AWAY_GRACE_DEFAULT = 10, 600, 60
"""Seconds a seated person may be away before a bot plays for them (app/live/deadlines.py)."""
TURN_TIMER_MIN, TURN_TIMER_MAX = 15, 600
"""Seconds a person's turn may last, when the room has a turn timer."""
