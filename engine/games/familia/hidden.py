"""What a Familia view reveals beyond the hand and public plays (for `engine.infoset`): the face
cards turned and won, and the face-up draw pile's top and the cards drawn from it; and the cards
no seat holds (for `Match.view_all`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.games.familia.rules import JOKER, forcing_cards

if TYPE_CHECKING:
    from engine.games.familia.rules import FamiliaMatch

REVEAL_KEYS = ("trick", "last_trick", "won", "discarded_faces", "draw_pile", "known_cards", "last_draws")

FREE_CARDS = ("X",)
"""A wild joker may always be played, so holding one never explains a refused play."""



def forced_cards(match: FamiliaMatch, seat: int) -> set[str]:
    """The cards in `seat`'s hand that oblige it to play one of them (to follow, trump or win).

    A card that would bat, or a joker, may be played but need not be, so when a guess refuses a
    real play only these cards explain it; the other legal cards may well have been in the real
    hand (`engine.infoset` learns bans from this set instead of the legal cards)."""
    trick = match.trick
    if trick is None:
        return set()
    plain = [card for card in match.holdings[seat] if card != JOKER]
    forcing = forcing_cards(plain, trick, match._batting)
    return set() if forcing is plain else set(forcing)


def unseen_piles(match: FamiliaMatch) -> dict[str, list[str]]:
    """The number-card draw pile (its top card is face up), the two face-card piles in the order
    they are turned, and face cards carried over to the next deal's piles (`Match.view_all`)."""
    return {
        "draw_pile": list(match.draw_pile),
        "black": list(match.black),
        "red": list(match.red),
        "black_carry": list(match.carry.get("black", [])),
        "red_carry": list(match.carry.get("red", [])),
    }
