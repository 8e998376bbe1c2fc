"""Holy Grail's hidden information: nothing is revealed beyond the hand and public plays (so
`engine.infoset` needs no keys here); for an all-seeing observer, the stock still to be dealt."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.games.holy_grail.rules import HolyGrailMatch


def unseen_piles(match: HolyGrailMatch) -> dict[str, list[str]]:
    """The stock: the later dealing rounds' cards, in dealing order (`Match.view_all`)."""
    return {"stock": match.stock_cards()} if match.hand is not None else {}
