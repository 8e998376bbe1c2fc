"""Holy Grail's card sets per player count, its ranking, and its deal sizes."""

from __future__ import annotations

from sys import intern
from typing import Final

from engine.cards import EXTAROT_RANKS, EXTAROT_SUITS, MAJOR_COUNT

HEART: Final = "H"
PLAY_RANKS = tuple(rank for rank in EXTAROT_RANKS if rank != "F")
"""The fairy (F) is not used: −1, 0, A…15, ∞, J, C, Q, K in each suit (22 cards)."""

# Minor ranking inside a suit, weakest first: −1 < 0 < A < 2 … 15 < J < C < Q < K < ∞.
_MINOR_ORDER = ("-1", "0", *(str(n) for n in range(1, 16)), "J", "C", "Q", "K", "I")
MINOR_STRENGTH: Final = {rank: index for index, rank in enumerate(_MINOR_ORDER)}

DEALS: Final[dict[int, tuple[int, int]]] = {
    3: (12, 3),
    4: (14, 2),
    5: (10, 2),
    6: (9, 2),
    7: (16, 1),
    8: (14, 1),
    9: (12, 1),
    10: (10, 1),
}
"""Players → (cards per player in one dealing round, number of dealing rounds)."""


def card_set(players: int) -> list[str]:
    """The cards used at this player count (108, 112 or 100), in a fixed canonical order.

    3, 6 and 9 players drop the −1 of every suit but hearts and major 0 (108 cards); 4, 7 and
    8 use all 112; 5 and 10 drop the −1, 0 and ∞ of every suit but hearts and majors 0, 22 and
    23 (100 cards).
    """
    if players in (3, 6, 9):
        dropped_ranks, dropped_majors = {"-1"}, {0}
    elif players in (5, 10):
        dropped_ranks, dropped_majors = {"-1", "0", "I"}, {0, 22, 23}
    else:
        dropped_ranks, dropped_majors = set(), set()
    cards = [
        intern(suit + rank)
        for suit in EXTAROT_SUITS
        for rank in PLAY_RANKS
        if suit == HEART or rank not in dropped_ranks
    ]
    cards += [intern(f"M{n}") for n in range(MAJOR_COUNT) if n not in dropped_majors]
    return cards


SUIT_OF: Final[dict[str, str]] = {}
"""Card → 'H', 'D', 'C', 'S' or 'M' (major), for every Holy Grail card."""
STRENGTH: Final[dict[str, int]] = {}
"""Card → strength within its own suit (majors by number)."""
for _code in card_set(4):
    SUIT_OF[_code] = _code[0]
    STRENGTH[_code] = int(_code[1:]) if _code[0] == "M" else MINOR_STRENGTH[_code[1:]]
