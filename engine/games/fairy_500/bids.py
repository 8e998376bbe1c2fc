"""The bids of Fairy Five Hundred, their codes, base points and names.

A bid is named by a short code that travels in actions and views:
- a trick contract: tricks + trump, e.g. "6S", "8H", "10NT" (trumps S 魔剣, C 聖樹, D 金貨,
  H 聖杯, NT no-trumps);
- a misère: an optional declaration prefix ("double_", "crazy_") and the kind ("misere",
  "hand_misere", "open_misere", "open_hand_misere"), e.g. "crazy_open_hand_misere".

Trick contracts are worth 40/60/80/100/120 at six tricks in the trump order above, plus 100 for
every further trick. A misère's base depends on the table size, and a declaration multiplies it.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.games.fairy_500.deck import NO_TRUMP

TRUMP_ORDER = ("S", "C", "D", "H", NO_TRUMP)
"""Cheapest to dearest at equal tricks."""

MISERE_KINDS = ("misere", "hand_misere", "open_misere", "open_hand_misere")
DECLARATIONS = (None, "double", "crazy")
DECLARATION_FACTOR = {None: 1, "double": 2, "crazy": 10}

MISERE_BASE = {
    "misere": (250, 150, 50),
    "hand_misere": (350, 250, 150),
    "open_misere": (450, 350, 250),
    "open_hand_misere": (550, 450, 350),
}
"""Base points for 3–4, 5–6 and 7–8 players."""

TRUMP_NAMES = {
    "S": {"en": "Magic Sword", "ja": "魔剣"},
    "C": {"en": "Sacred Tree", "ja": "聖樹"},
    "D": {"en": "Coins", "ja": "金貨"},
    "H": {"en": "Holy Grail", "ja": "聖杯"},
    NO_TRUMP: {"en": "No-trumps", "ja": "ノートランプ"},
}
MISERE_NAMES = {
    "misere": {"en": "Misère", "ja": "ミゼール"},
    "hand_misere": {"en": "Hand Misère", "ja": "ハンドミゼール"},
    "open_misere": {"en": "Open Misère", "ja": "オープンミゼール"},
    "open_hand_misere": {"en": "Open Hand Misère", "ja": "オープンハンドミゼール"},
}
DECLARATION_NAMES = {
    "double": {"en": "Double", "ja": "ダブル"},
    "crazy": {"en": "Crazy", "ja": "クレージー"},
}


@dataclass(frozen=True, slots=True)
class Bid:
    """One entry of the bidding table at a given table size."""

    code: str
    points: int
    tricks: int | None = None
    trump: str | None = None
    misere: str | None = None
    declaration: str | None = None

    @property
    def is_misere(self) -> bool:
        return self.misere is not None

    @property
    def takes_kitty(self) -> bool:
        """Hand misères play the dealt hand: the kitty stays dead."""
        return self.misere not in ("hand_misere", "open_hand_misere")

    def __deepcopy__(self, memo: dict[int, object]) -> Bid:
        """A bid is an immutable value: a search's copy of a match shares it (a compiled frozen
        class could not be rebuilt attribute by attribute anyway)."""
        return self

    def __reduce__(self) -> tuple[type[Bid], tuple[object, ...]]:
        """Pickled as its constructor call (a compiled frozen class cannot be set field by field)."""
        return Bid, (self.code, self.points, self.tricks, self.trump, self.misere, self.declaration)

    @property
    def is_open(self) -> bool:
        return self.misere in ("open_misere", "open_hand_misere")

    def label(self) -> dict[str, str]:
        if self.misere is None:
            assert self.trump is not None  # a trick bid names its trump (or no-trumps)
            names = TRUMP_NAMES[self.trump]
            return {"en": f"{self.tricks} {names['en']}", "ja": f"{self.tricks} {names['ja']}"}
        kind = MISERE_NAMES[self.misere]
        if self.declaration is None:
            return dict(kind)
        declared = DECLARATION_NAMES[self.declaration]
        return {"en": f"{declared['en']} {kind['en']}", "ja": f"{declared['ja']}・{kind['ja']}"}

    def to_json(self) -> dict:
        return {
            "bid": self.code,
            "points": self.points,
            "tricks": self.tricks,
            "trump": self.trump,
            "misere": self.misere,
            "declaration": self.declaration,
            "label": self.label(),
        }


def bracket(players: int) -> int:
    """0 for 3–4 players, 1 for 5–6, 2 for 7–8: the column of the misère table."""
    return (players - 3) // 2


def trick_bid_points(tricks: int, trump: str) -> int:
    return 40 + 20 * TRUMP_ORDER.index(trump) + 100 * (tricks - 6)


def misere_bid_points(kind: str, declaration: str | None, players: int) -> int:
    return MISERE_BASE[kind][bracket(players)] * DECLARATION_FACTOR[declaration]


def misere_code(kind: str, declaration: str | None) -> str:
    return kind if declaration is None else f"{declaration}_{kind}"


def bid_table(players: int) -> list[Bid]:
    """Every bid at this table size, cheapest first (ties keep trick contracts first)."""
    bids = [
        Bid(f"{tricks}{trump}", trick_bid_points(tricks, trump), tricks=tricks, trump=trump)
        for tricks in range(6, 11)
        for trump in TRUMP_ORDER
    ]
    bids += [
        Bid(misere_code(kind, decl), misere_bid_points(kind, decl, players), misere=kind, declaration=decl)
        for kind in MISERE_KINDS
        for decl in DECLARATIONS
    ]
    return sorted(bids, key=lambda bid: bid.points)


_TABLES = {players: bid_table(players) for players in range(3, 9)}
_BY_CODE = {players: {bid.code: bid for bid in table} for players, table in _TABLES.items()}


def bids_for(players: int) -> list[Bid]:
    return _TABLES[players]


def find_bid(players: int, code: object) -> Bid | None:
    """The bid with this code at this table size, or None for an unknown code."""
    if not isinstance(code, str):
        return None
    return _BY_CODE[players].get(code)
