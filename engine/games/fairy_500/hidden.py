"""What a Fairy Five Hundred view reveals beyond the hand and public plays (for `engine.infoset`),
and the cards no seat holds (for `Match.view_all`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.games.fairy_500.rules import FairyFiveHundredMatch

REVEAL_KEYS = ("open_hand",)
"""An open misère's hand, shown to everyone once play begins."""

PRIVATE_KEYS = ("discards",)
"""What one seat alone knows (`Match.view_all`): the declarer's own discards."""


def unseen_piles(match: FairyFiveHundredMatch) -> dict[str, list[str]]:
    """The kitty until the declarer takes it (a dead kitty stays face down all hand) and the
    declarer's discards (`Match.view_all`)."""
    hand = match.hand
    if hand is None:
        return {}
    return {"kitty": list(hand.kitty), "discards": list(hand.discards)}
