"""The three decks and their card codes (the wire format, see docs/ENGINE_CONTRACT.md).

Cards are plain strings everywhere: they are JSON-ready, hashable, and cheap to compare.
Each deck module-level table maps a code to its suit and rank once, so the hot path of a
game looks facts up in a dict instead of parsing strings.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.core import shared_action

# ---- ExTarot --------------------------------------------------------------------------------
EXTAROT_SUITS = ("H", "D", "C", "S")
"""聖杯 Holy Grail (hearts, red), 金貨 coins (diamonds, red), 聖樹 sacred tree (clubs, black),
魔剣 magic sword (spades, black)."""

EXTAROT_RANKS = ("-1", "0", *(str(n) for n in range(1, 16)), "I", "J", "C", "Q", "K", "F")
"""Every minor rank in the order they are printed: −1, 0, A(1)…15, ∞, J, C (knight), Q, K, F."""

MAJOR_COUNT = 24
MAJORS = tuple(f"M{n}" for n in range(MAJOR_COUNT))
RED_SUITS = frozenset({"H", "D"})

EXTAROT_SUIT_NAMES = {
    "H": {"en": "Holy Grail", "ja": "聖杯"},
    "D": {"en": "Coins", "ja": "金貨"},
    "C": {"en": "Sacred Tree", "ja": "聖樹"},
    "S": {"en": "Magic Sword", "ja": "魔剣"},
    "M": {"en": "Major arcana", "ja": "大アルカナ"},
}


def extarot_minor(suit: str, rank: str) -> str:
    return f"{suit}{rank}"


def extarot_deck(
    ranks: Iterable[str] = EXTAROT_RANKS,
    suits: Iterable[str] = EXTAROT_SUITS,
    majors: Iterable[int] = range(MAJOR_COUNT),
) -> list[str]:
    """A subset of the ExTarot deck: the given minor ranks in the given suits plus majors."""
    rank_list = list(ranks)
    return [suit + rank for suit in suits for rank in rank_list] + [f"M{n}" for n in majors]


def extarot_suit(code: str) -> str:
    """'H', 'D', 'C', 'S', or 'M' for a major arcana."""
    return code[0]


def extarot_rank(code: str) -> str:
    """The printed rank of a minor ('-1', '0', '1'…'15', 'I', 'J', 'C', 'Q', 'K', 'F'),
    or the number of a major as a string."""
    return code[1:]


def is_major(code: str) -> bool:
    return code[0] == "M"


def major_number(code: str) -> int:
    return int(code[1:])


FULL_EXTAROT = frozenset(extarot_deck())

# ---- Standard deck ----------------------------------------------------------------------------
STANDARD_SUITS = ("S", "H", "D", "C")
STANDARD_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
JOKER = "X"
STANDARD_RED = frozenset({"H", "D"})


def standard_deck(decks: int = 1, jokers: int = 0, ranks: Iterable[str] = STANDARD_RANKS) -> list[str]:
    """`decks` standard 52-card packs (equal codes repeat) plus `jokers` jokers."""
    rank_list = list(ranks)
    one = [suit + rank for suit in STANDARD_SUITS for rank in rank_list]
    return one * decks + [JOKER] * jokers


def standard_suit(code: str) -> str:
    """'S', 'H', 'D', 'C', or 'X' for a joker."""
    return code[0]


def standard_rank(code: str) -> str:
    return code[1:]


def standard_is_red(code: str) -> bool:
    return code[0] in STANDARD_RED


# ---- French tarot -------------------------------------------------------------------------------
FRENCH_SUITS = ("S", "H", "D", "C")
FRENCH_RANKS = (*(str(n) for n in range(1, 11)), "J", "C", "Q", "K")
FRENCH_TRUMPS = tuple(f"T{n}" for n in range(1, 22))
EXCUSE = "EX"
OUDLERS = frozenset({"T1", "T21", EXCUSE})


def french_tarot_deck() -> list[str]:
    """The 78 cards: 56 suit cards, 21 trumps and the excuse."""
    return [suit + rank for suit in FRENCH_SUITS for rank in FRENCH_RANKS] + list(FRENCH_TRUMPS) + [EXCUSE]


def french_is_trump(code: str) -> bool:
    return code[0] == "T"


def french_suit(code: str) -> str:
    """'S', 'H', 'D', 'C', 'T' for a trump, 'E' for the excuse."""
    return code[0]


_FRENCH_POINTS = {"K": 4.5, "Q": 3.5, "C": 2.5, "J": 1.5}


def french_card_points(code: str) -> float:
    """Card points as counted at the end of a hand (the 78 cards total 91)."""
    if code in OUDLERS:
        return 4.5
    if code[0] == "T":
        return 0.5
    return _FRENCH_POINTS.get(code[1:], 0.5)


# ---- shared helpers -------------------------------------------------------------------------------
def deal_slices(order: list[str], sizes: list[int]) -> list[list[str]]:
    """Cut `order` into consecutive slices of the given sizes (the rest is ignored)."""
    out: list[list[str]] = []
    pos = 0
    for size in sizes:
        out.append(order[pos : pos + size])
        pos += size
    return out


def remove_cards(hand: list[str], cards: Iterable[str]) -> list[str] | None:
    """`hand` without `cards` (each removed once), or None if some card is not in it."""
    rest = list(hand)
    for card in cards:
        try:
            rest.remove(card)
        except ValueError:
            return None
    return rest


# ---- shared action objects -------------------------------------------------------------------------
PASS_ACTION = shared_action({"type": "pass"})
"""The one `{"type": "pass"}` object every game lists: legal lists and logs only read actions."""


class _SharedPlays(dict[str, dict]):
    """Card → the one `{"type": "play", "cards": [card]}` object for it, made on first use."""

    def __missing__(self, card: str) -> dict:
        action = self[card] = shared_action({"type": "play", "cards": [card]})
        return action


play_one = _SharedPlays().__getitem__
"""The one single-card play action of `card`, shared by every match, so that legal lists are
cheap to build (`map(play_one, cards)` runs in C) and a match's log holds no copies of them
(a memo of immutable values: the same card always gives the same action)."""
