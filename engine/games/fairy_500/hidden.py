"""What a Fairy Five Hundred view reveals beyond the hand and public plays (for `engine.infoset`),
and the cards no seat holds (for `Match.view_all`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.core import Match
    from engine.games.fairy_500.rules import FairyFiveHundredMatch

REVEAL_KEYS = ("open_hand",)
"""An open misère's hand, shown to everyone once play begins."""

PRIVATE_KEYS = ("discards",)
"""What one seat alone knows (`Match.view_all`): the declarer's own discards."""


def family_of(match: Match) -> Callable[[str], str] | None:
    """The suit each card follows in this hand: with a trump, the F's and the same-colour J are
    trumps: a seat that could not play the same-colour J on a trump lead is void in trumps, not
    in the J's printed suit."""
    hand = getattr(match, "hand", None)
    ranking = getattr(hand, "ranking", None)
    return None if ranking is None else ranking.suit.__getitem__


def unseen_piles(match: FairyFiveHundredMatch) -> dict[str, list[str]]:
    """The kitty until the declarer takes it (a dead kitty stays face down all hand) and the
    declarer's discards (`Match.view_all`)."""
    hand = match.hand
    if hand is None:
        return {}
    return {"kitty": list(hand.kitty), "discards": list(hand.discards)}
