"""The 60-card Yaya Fugou deck and its strength tables.

Each ExTarot suit contributes 3–10, J, C, Q, K, A, 2 and F. Strength is looked up in dicts
built once here, so the hot path never parses a card code.
"""

from __future__ import annotations

from typing import Final

from engine.cards import EXTAROT_SUITS

SUITS: Final[tuple[str, ...]] = EXTAROT_SUITS
"""H 聖杯, D 金貨, C 聖樹, S 魔剣: the order used for showing hands and picking canonical F's."""

NATURAL_RANKS: Final[tuple[str, ...]] = (
    "3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K", "1", "2",
)
"""The fourteen non-F ranks, weakest first in normal (non-revolution) order; "1" is the ace."""

F_RANK: Final = "F"
F_STRENGTH: Final = len(NATURAL_RANKS)
"""Strength of an F: above every natural card (14), and it never reverses."""

DECK: Final[tuple[str, ...]] = tuple(suit + rank for suit in SUITS for rank in (*NATURAL_RANKS, F_RANK))
DECK_SET: Final = frozenset(DECK)

STRENGTH: Final[dict[str, int]] = {
    suit + rank: index for suit in SUITS for index, rank in enumerate((*NATURAL_RANKS, F_RANK))
}
"""Normal strength of every card: 0 for a 3 … 13 for a 2, 14 for an F."""

SUIT_OF: Final[dict[str, str]] = {card: card[0] for card in DECK}
IS_F: Final[dict[str, bool]] = {card: card[1:] == F_RANK for card in DECK}
NATURALS: Final = frozenset(card for card in DECK if not IS_F[card])
F_CARDS: Final[tuple[str, ...]] = tuple(suit + F_RANK for suit in SUITS)

COINS_THREE: Final = "D3"
"""The 金貨 (coins) 3, whose holder leads the first hand."""

LOWEST_TIE_SUITS: Final[dict[str, int]] = {"D": 0, "H": 1, "C": 2, "S": 3}
"""When the coins 3 is set aside, equal weakest cards are ordered coins, holy grail, sacred
tree, magic sword (docs/RULINGS.md)."""

_SUIT_POSITION: Final = {suit: index for index, suit in enumerate(SUITS)}


def card_of(suit: str, strength: int) -> str:
    """The natural card of `suit` at normal strength `strength` (0–13)."""
    return suit + NATURAL_RANKS[strength]


def sort_key(card: str) -> tuple[int, int]:
    """Hands are shown weakest to strongest, suits in a fixed order within a rank."""
    return STRENGTH[card], _SUIT_POSITION[card[0]]


LISTING_ORDER: Final[dict[str, int]] = {card: index for index, card in enumerate(sorted(DECK, key=sort_key))}
"""Card → its place in `sort_key` order: the order hands are kept and plays listed in."""


def sorted_hand(cards: list[str]) -> list[str]:
    return sorted(cards, key=LISTING_ORDER.__getitem__)


def weakest_card(cards: list[str]) -> str:
    """The weakest card in normal order, ties broken coins → holy grail → sacred tree → sword."""
    return min(cards, key=lambda card: (STRENGTH[card], LOWEST_TIE_SUITS[card[0]]))
