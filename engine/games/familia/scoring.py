"""Familia scoring: pure functions from the face cards a player won to that player's points.

A player's won face cards are split into roles (familia, family, marriage and their royal
variants) and singles. Without a joker the player may split them freely, so the engine searches
for the split that scores most. A won joker takes the choice away: the roles are then built
greedily in the seed's fixed order and each joker cancels the highest role of that order
(the fixed order stops a player from steering a joker onto a role that costs them).

Bonuses: zero-sum (singles adding up to exactly zero pay 2 per single) and misère (no trick
taken pays 6, ×3 per extra set of face cards). Ranking ties go to fewer face cards, then to fewer
face-card points.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from sys import intern  # one string per card code in the shared results

JOKER = "X"
SUITS = ("S", "H", "D", "C")
FACE_RANKS = ("K", "Q", "J")
FACE_POINTS = {"K": 3, "Q": 2, "J": 1, JOKER: 0}
"""Card points used only to break ranking ties (a joker is worth nothing)."""

SINGLE_POINTS = {
    "M": {"K": 3, "Q": -4, "J": 1},
    "F": {"K": -6, "Q": 2, "J": -2},
}
"""A single's value by the player's role: own-sex cards score their points, the other sex's
cards cost twice their points."""

SINGLE_PRIORITY = {"M": ("Q", "K", "J"), "F": ("K", "J", "Q")}
"""The fixed order in which singles are listed when a joker forces the roles (largest first)."""

ROLE_POINTS = {
    "royal_family": 30,
    "royal_marriage": 20,
    "familia": 20,
    "family": 15,
    "marriage": 10,
}

MISERE_BASE = 6


@dataclass(frozen=True, slots=True)
class Role:
    """One scored group of won face cards; `kind` is a ROLE_POINTS key, "single" or "joker"."""

    kind: str
    cards: tuple[str, ...]
    points: int
    zeroed: bool = False

    @property
    def scored(self) -> int:
        return 0 if self.zeroed else self.points

    def to_json(self) -> dict:
        return {"kind": self.kind, "cards": list(self.cards), "points": self.points, "zeroed": self.zeroed}


@dataclass(frozen=True, slots=True)
class PlayerScore:
    """Everything that explains one player's points for one hand."""

    roles: tuple[Role, ...]
    singles: tuple[Role, ...]
    zero_sum_bonus: int
    misere_bonus: int
    total: int
    forced: bool

    def to_json(self) -> dict:
        return {
            "roles": [r.to_json() for r in self.roles],
            "singles": [s.to_json() for s in self.singles],
            "zero_sum_bonus": self.zero_sum_bonus,
            "misere_bonus": self.misere_bonus,
            "total": self.total,
            "forced": self.forced,
        }


_ROLES: dict[tuple[str, tuple[str, ...], int, bool], Role] = {}
"""Every Role made so far, by value: there are few distinct ones (a role shape or a single card,
its points, zeroed or not), so every hand's results share them (a live match keeps its finished
hands' results)."""


def _role(kind: str, cards: tuple[str, ...], points: int, zeroed: bool = False) -> Role:
    """The one shared `Role(kind, cards, points, zeroed)`."""
    key = (kind, cards, points, zeroed)
    role = _ROLES.get(key)
    if role is None:
        role = _ROLES[key] = Role(kind, tuple(map(intern, cards)), points, zeroed)
    return role


def single_points(card: str, sex: str) -> int:
    """Value of one face card kept as a single by a player of `sex` ("M" or "F")."""
    if card == JOKER:
        return 0
    return SINGLE_POINTS[sex][card[1:]]


def zero_sum_bonus(single_values: Sequence[int]) -> int:
    """2 points per single when the singles add up to exactly zero (and there is at least one)."""
    if single_values and sum(single_values) == 0:
        return 2 * len(single_values)
    return 0


def misere_bonus(face_sets: int) -> int:
    """The no-trick bonus: 6 with one set of face cards, tripled for each further set."""
    return MISERE_BASE * 3 ** (face_sets - 1)


def face_card_points(cards: Iterable[str]) -> int:
    """Sum of K=3, Q=2, J=1 (jokers 0), the second ranking tie-break."""
    return sum(FACE_POINTS[card if card == JOKER else card[1:]] for card in cards)


# ---- the role shapes ---------------------------------------------------------------------------
def _role_shapes(crest: str | None) -> list[tuple[str, tuple[str, ...]]]:
    """Every role a player can form, in the seed's priority order (royal first). A family or
    marriage in the crest suit is always royal, so the plain one is not offered for that suit."""
    shapes: list[tuple[str, tuple[str, ...]]] = []
    if crest is not None:
        shapes.append(("royal_family", (crest + "K", crest + "Q", crest + "J")))
        shapes.append(("royal_marriage", (crest + "K", crest + "Q")))
    for rank in FACE_RANKS:
        shapes.append(("familia", tuple(suit + rank for suit in SUITS)))
    for suit in SUITS:
        if suit != crest:
            shapes.append(("family", (suit + "K", suit + "Q", suit + "J")))
    for suit in SUITS:
        if suit != crest:
            shapes.append(("marriage", (suit + "K", suit + "Q")))
    return shapes


def _count(cards: Iterable[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for card in cards:
        counts[card] = counts.get(card, 0) + 1
    return counts


def _singles_from(counts: dict[str, int], sex: str, order: Sequence[str] | None = None) -> list[Role]:
    ranks = order or FACE_RANKS
    singles: list[Role] = []
    for rank in ranks:
        for suit in SUITS:
            card = intern(suit + rank)
            for _ in range(counts.get(card, 0)):
                singles.append(_role("single", (card,), single_points(card, sex)))
    return singles


def _singles_value(singles: Sequence[Role]) -> int:
    values = [s.scored for s in singles]
    return sum(values) + zero_sum_bonus(values)


def best_partition(cards: Sequence[str], sex: str, crest: str | None = None) -> tuple[list[Role], list[Role]]:
    """The split of joker-free `cards` into roles and singles that scores most for `sex`.

    Exhaustive, because the zero-sum bonus can make a smaller split worth more than a bigger
    one. Familias are the only roles spanning suits, so for every choice of familia counts the
    suits are combined one by one, keeping per (singles sum, singles count) the best role points.
    """
    counts = {suit + rank: 0 for suit in SUITS for rank in FACE_RANKS}
    counts.update(_count(cards))
    values = SINGLE_POINTS[sex]
    most = [min(counts.get(suit + rank, 0) for suit in SUITS) for rank in FACE_RANKS]
    if not any(most) and not any(counts[suit + "K"] and counts[suit + "Q"] for suit in SUITS):
        return [], _singles_from(counts, sex)  # no role can be formed: every card is a single
    best: tuple[int, tuple[int, ...], tuple[tuple[int, int], ...]] | None = None
    for familias in _product_ranges(most):
        # states: (singles sum, singles count) -> (role points, per-suit (families, marriages))
        states: dict[tuple[int, int], tuple[int, tuple[tuple[int, int], ...]]] = {(0, 0): (0, ())}
        for suit in SUITS:
            k, q, j = (
                counts.get(suit + rank, 0) - used for rank, used in zip(FACE_RANKS, familias, strict=True)
            )
            royal = suit == crest
            family_points = ROLE_POINTS["royal_family" if royal else "family"]
            marriage_points = ROLE_POINTS["royal_marriage" if royal else "marriage"]
            options = []
            for fam in range(min(k, q, j) + 1):
                for mar in range(min(k - fam, q - fam) + 1):
                    left = (k - fam - mar, q - fam - mar, j - fam)
                    single_sum = left[0] * values["K"] + left[1] * values["Q"] + left[2] * values["J"]
                    options.append(
                        (fam * family_points + mar * marriage_points, single_sum, sum(left), (fam, mar))
                    )
            merged: dict[tuple[int, int], tuple[int, tuple[tuple[int, int], ...]]] = {}
            for (total_sum, total_count), (points, plan) in states.items():
                for role_points, single_sum, single_count, choice in options:
                    key = (total_sum + single_sum, total_count + single_count)
                    candidate = points + role_points
                    if key not in merged or candidate > merged[key][0]:
                        merged[key] = (candidate, (*plan, choice))
            states = merged
        for (single_sum, single_count), (points, plan) in states.items():
            value = points + single_sum + (2 * single_count if single_sum == 0 and single_count else 0)
            value += 20 * sum(familias)
            if best is None or value > best[0]:
                best = (value, familias, plan)
    assert best is not None
    _, familias, plan = best
    roles: list[Role] = []
    for rank, times in zip(FACE_RANKS, familias, strict=True):
        shape = tuple(suit + rank for suit in SUITS)
        roles += [_role("familia", shape, ROLE_POINTS["familia"])] * times
        for card in shape:
            counts[card] -= times
    for suit, (fam, mar) in zip(SUITS, plan, strict=True):
        royal = suit == crest
        family, marriage = ("royal_family", "royal_marriage") if royal else ("family", "marriage")
        roles += [_role(family, (suit + "K", suit + "Q", suit + "J"), ROLE_POINTS[family])] * fam
        roles += [_role(marriage, (suit + "K", suit + "Q"), ROLE_POINTS[marriage])] * mar
        for rank, used in (("K", fam + mar), ("Q", fam + mar), ("J", fam)):
            counts[suit + rank] -= used
    order = {kind: i for i, kind in enumerate(ROLE_POINTS)}
    roles.sort(key=lambda role: order[role.kind])
    return roles, _singles_from(counts, sex)


def _product_ranges(limits: Sequence[int]) -> list[tuple[int, ...]]:
    """Every tuple with 0 <= t[i] <= limits[i], largest first."""
    combos: list[tuple[int, ...]] = [()]
    for limit in limits:
        combos = [(*combo, n) for combo in combos for n in range(limit, -1, -1)]
    return combos


def forced_partition(
    cards: Sequence[str], sex: str, crest: str | None = None
) -> tuple[list[Role], list[Role]]:
    """Roles built greedily in the seed's order when a joker was won, then every joker cancels
    the highest role left in that order (royal family, royal marriage, familia, family,
    marriage, then singles: Q, K, J for a man; K, J, Q for a woman). Jokers are singles worth 0."""
    jokers = sum(1 for c in cards if c == JOKER)
    counts = _count(c for c in cards if c != JOKER)
    roles: list[Role] = []
    for kind, shape in _role_shapes(crest):
        while all(counts.get(card, 0) > 0 for card in shape):
            roles.append(_role(kind, shape, ROLE_POINTS[kind]))
            for card in shape:
                counts[card] -= 1
    singles = _singles_from(counts, sex, SINGLE_PRIORITY[sex])
    roles = [_cancel(role) if i < jokers else role for i, role in enumerate(roles)]
    singles = [_cancel(s) if len(roles) + i < jokers else s for i, s in enumerate(singles)]
    singles += [_role("joker", (JOKER,), 0) for _ in range(jokers)]
    return roles, singles


def _cancel(role: Role) -> Role:
    return _role(role.kind, role.cards, role.points, zeroed=True)


def score_player(
    won: Sequence[str], sex: str, crest: str | None, tricks_won: int, face_sets: int
) -> PlayerScore:
    """One player's points for a hand from the face cards (and jokers) they won."""
    forced = JOKER in won
    roles, singles = (forced_partition if forced else best_partition)(won, sex, crest)
    single_values = [s.scored for s in singles]
    zero_sum = zero_sum_bonus(single_values)
    misere = misere_bonus(face_sets) if tricks_won == 0 else 0
    total = sum(r.scored for r in roles) + sum(single_values) + zero_sum + misere
    return PlayerScore(tuple(roles), tuple(singles), zero_sum, misere, total, forced)


def rank_places(entries: Sequence[tuple[int, int, int]]) -> list[int]:
    """1-based places for (points, face cards won, face-card points) entries: more points first,
    then fewer face cards, then fewer face-card points; entries equal on all three share a place."""
    keys = [(-points, count, face_points) for points, count, face_points in entries]
    return [1 + sum(1 for other in keys if other < key) for key in keys]
