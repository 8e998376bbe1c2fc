"""Get the Holy Grail!'s table options."""

from __future__ import annotations

from engine.core import GameOptions


class HolyGrailOptions(GameOptions):
    """Holy Grail has no rule options; only the match length (hands) is chosen."""
