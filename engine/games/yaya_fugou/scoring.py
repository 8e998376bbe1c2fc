"""Finishing order, titles, match points and the exchange pairs: pure functions of a hand's
outcome, so that the rule pages, the engine and the tests read the same tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

DAIFUGOU: Final = "daifugou"
FUGOU: Final = "fugou"
YAYA_FUGOU: Final = "yaya_fugou"
HEIMIN: Final = "heimin"
YAYA_HINMIN: Final = "yaya_hinmin"
HINMIN: Final = "hinmin"
DAIHINMIN: Final = "daihinmin"

TITLE_NAMES: Final[dict[str, dict[str, str]]] = {
    DAIFUGOU: {"ja": "大富豪", "en": "Tycoon"},
    FUGOU: {"ja": "富豪", "en": "Rich"},
    YAYA_FUGOU: {"ja": "やや富豪", "en": "Fairly Rich"},
    HEIMIN: {"ja": "平民", "en": "Commoner"},
    YAYA_HINMIN: {"ja": "やや貧民", "en": "Fairly Poor"},
    HINMIN: {"ja": "貧民", "en": "Poor"},
    DAIHINMIN: {"ja": "大貧民", "en": "Beggar"},
}

TITLE_TABLES: Final[dict[int, tuple[str, ...]]] = {
    4: (DAIFUGOU, FUGOU, HINMIN, DAIHINMIN),
    5: (DAIFUGOU, FUGOU, HEIMIN, HINMIN, DAIHINMIN),
    6: (DAIFUGOU, FUGOU, YAYA_FUGOU, YAYA_HINMIN, HINMIN, DAIHINMIN),
    7: (DAIFUGOU, FUGOU, YAYA_FUGOU, HEIMIN, YAYA_HINMIN, HINMIN, DAIHINMIN),
    8: (DAIFUGOU, FUGOU, YAYA_FUGOU, HEIMIN, HEIMIN, YAYA_HINMIN, HINMIN, DAIHINMIN),
}
"""Titles from first place to last, by player count (docs/RULINGS.md)."""

EXCHANGES: Final[tuple[tuple[str, str, int], ...]] = (
    (DAIHINMIN, DAIFUGOU, 2),
    (HINMIN, FUGOU, 1),
    (YAYA_HINMIN, YAYA_FUGOU, 1),
)
"""(poorer title, richer title, cards each way): the poorer side gives its strongest cards."""


@dataclass(frozen=True, slots=True)
class PointTable:
    """Match points of the three rich titles; each poor title scores the opposite of its
    mirror and 平民 scores 0, which keeps every hand zero-sum whatever the table picks."""

    daifugou: int = 3
    fugou: int = 2
    yaya_fugou: int = 1

    def __reduce__(self) -> tuple[type[PointTable], tuple[int, int, int]]:
        """Rebuilt from its fields: compiled, a frozen class cannot be restored field by field."""
        return PointTable, (self.daifugou, self.fugou, self.yaya_fugou)

    def points(self, title: str) -> int:
        """Match points of `title` (a chain of tests: views ask for every title each time)."""
        if title == DAIFUGOU:
            return self.daifugou
        if title == FUGOU:
            return self.fugou
        if title == YAYA_FUGOU:
            return self.yaya_fugou
        if title == HEIMIN:
            return 0
        if title == YAYA_HINMIN:
            return -self.yaya_fugou
        if title == HINMIN:
            return -self.fugou
        if title == DAIHINMIN:
            return -self.daifugou
        raise KeyError(title)


def titles_for(players: int) -> tuple[str, ...]:
    """The title of each finishing place, first to last, for a table of `players`."""
    return TITLE_TABLES[players]


def finishing_order(went_out: list[int], f_only: list[int], remaining: list[int]) -> list[int]:
    """Seats from first to last place.

    `went_out` holds the seats that emptied their hands normally, in the order they did;
    `f_only` those whose last play was made only of F's, in the order they went out;
    `remaining` the seat(s) still holding cards when the hand stopped. Normal finishers come
    first, then the seats left holding cards, then the F-only finishers, the earliest of them
    last."""
    return [*went_out, *remaining, *reversed(f_only)]


def hand_result(order: list[int], points: PointTable) -> tuple[list[str], list[int], list[int]]:
    """(title per seat, place per seat 1-based, points per seat) for a finishing order."""
    players = len(order)
    table = titles_for(players)
    titles = [""] * players
    places = [0] * players
    scores = [0] * players
    for index, seat in enumerate(order):
        titles[seat] = table[index]
        places[seat] = index + 1
        scores[seat] = points.points(table[index])
    return titles, places, scores


def exchange_pairs(titles: list[str]) -> list[tuple[int, int, int]]:
    """(giver, receiver, count) for each exchange the previous hand's titles call for: the
    poorer seat gives first, then the richer seat gives the same number back."""
    seat_of = {title: seat for seat, title in enumerate(titles) if title != HEIMIN}
    return [
        (seat_of[poor], seat_of[rich], count)
        for poor, rich, count in EXCHANGES
        if poor in seat_of and rich in seat_of
    ]
