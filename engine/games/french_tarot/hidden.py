"""What a French Tarot view reveals beyond the hand and public plays (for `engine.infoset`), and
the cards no seat holds (for `Match.view_all`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.games.french_tarot.rules import FrenchTarotMatch

REVEAL_KEYS = ("dog", "discard_shown_trumps", "poignees")
"""The dog once shown, trumps the taker had to put aside, and declared poignées."""

FREE_CARDS = ("EX",)
"""The excuse may always be played, so holding it never explains a refused play."""

PRIVATE_KEYS = ("partner", "discard", "taker_alone")
"""What one seat alone knows (`Match.view_all`): the secret partner knows itself, the taker its
discard and whether it plays alone."""


def unseen_piles(match: FrenchTarotMatch) -> dict[str, list[str]]:
    """The dog until it is shown (never, in garde sans and garde contre) and the taker's discard
    put aside face down (`Match.view_all`)."""
    hand = match.hand
    if hand is None:
        return {}
    return {"dog": [] if hand.dog_shown else list(hand.dog), "discard": list(hand.discard)}
