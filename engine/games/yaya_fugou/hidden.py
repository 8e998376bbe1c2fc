"""Yaya Fugou's hidden information, for `engine.infoset`.

Nothing is revealed beyond the hand and public plays, and no rule forces a play (a pass is
always allowed), so the one refusal a guess can meet is a poorer seat's forced gift of its
strongest cards: strength is not a suit, so a refused gift bans only the stronger cards met.
For an all-seeing observer (`Match.view_all`) it lists the cards set aside undealt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.games.yaya_fugou.rules import YayaFugouMatch

family = None

PRIVATE_KEYS = ("exchange_given", "exchange_received")
"""What each seat alone knows: the cards it gave and received in the exchange (`Match.view_all`)."""


def unseen_piles(match: YayaFugouMatch) -> dict[str, list[str]]:
    """The cards set aside undealt with 7 or 8 players (`Match.view_all`)."""
    hand = match.hand
    return {"aside": list(hand.aside)} if hand is not None else {}
