"""Yaya Fugou's table options."""

from __future__ import annotations

from pydantic import Field

from engine.core import GameOptions

DEFAULT_HANDS = 5


class YayaFugouOptions(GameOptions):
    """The seed leaves the match length to the table; the issue sets five hands. The other
    options are cheap house switches for rules a table may want to change."""

    hands: int | None = Field(default=DEFAULT_HANDS, description="Hands in the match.")
    points_daifugou: int = Field(
        default=3, ge=0, le=100, description="Points for 大富豪 (大貧民 loses as many)."
    )
    points_fugou: int = Field(default=2, ge=0, le=100, description="Points for 富豪 (貧民 loses as many).")
    points_yaya_fugou: int = Field(
        default=1, ge=0, le=100, description="Points for やや富豪 (やや貧民 loses as many)."
    )
    exchange: bool = Field(default=True, description="Exchange cards between titles from the second hand.")
    revolution: bool = Field(default=True, description="A play of four or more cards starts a revolution.")
