"""Fairy Five Hundred's table options."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from engine.core import GameOptions


class FairyFiveHundredOptions(GameOptions):
    """Table options; the defaults are the seed's standard game."""

    partnership: bool = Field(
        default=False,
        title="Partnership (4 players)",
        description="4 players only: opposite seats are permanent partners (no lieutenant naming).",
    )
    classical: bool = Field(
        default=False,
        title="Classical rules",
        description=(
            "The seed's classical rules: a side taking all ten tricks scores at least 250; "
            "lieutenants are named after the kitty, never a card the declarer has seen, and are "
            "revealed at once; an all-pass is not Ramsch."
        ),
    )
    classical_all_pass: Literal["redeal", "ten_per_trick"] = Field(
        default="redeal",
        title="Classical: after an all-pass",
        description="With the classical option, what an all-pass leads to: a redeal or a 10-per-trick game.",
    )
