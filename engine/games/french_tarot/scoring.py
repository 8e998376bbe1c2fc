"""French Tarot scoring as pure functions.

The hand's arithmetic is kept apart from the rules so that it can be tested number by number
against the worked examples of the issue and docs/RULINGS.md, and so that the result table in the
client can show every step (points, target, difference, multiplier, bonuses, shares).

Scoring follows docs/RULINGS.md (the French federation's formula where the seed is silent):
the taker's *unit* is

    (±(25 + difference) + petit au bout) × multiplier ± poignées + slam

where the sign is + when the taker's side reaches the target (exactly the target wins), petit au
bout is +10 when the taker's side takes the last trick with the 1 of trumps in it (whoever played
it) and −10 when the defence does, poignées are not multiplied and go to the side that wins the
hand, and slam is +400 announced and made, +200 made unannounced, −200 announced and failed (a slam
by the defence counts −200 for the taker's unit). Each defender scores −unit; the taker scores the
opposite of the defenders' sum, or with a five-player partner the taker takes two shares and the
partner one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.cards import OUDLERS, french_card_points

CONTRACTS: tuple[str, ...] = ("prise", "garde", "garde_sans", "garde_contre")
"""Bids from weakest to strongest."""

MULTIPLIERS: dict[str, int] = {"prise": 1, "garde": 2, "garde_sans": 4, "garde_contre": 6}

TARGETS: dict[int, int] = {0: 56, 1: 51, 2: 41, 3: 36}
"""Points the taker's side needs, by the number of oudlers it ends the hand with."""

POIGNEE_LEVELS: tuple[str, ...] = ("simple", "double", "triple")
POIGNEE_POINTS: dict[str, int] = {"simple": 20, "double": 30, "triple": 40}
POIGNEE_THRESHOLDS: dict[int, dict[str, int]] = {
    3: {"simple": 13, "double": 15, "triple": 18},
    4: {"simple": 10, "double": 13, "triple": 15},
    5: {"simple": 8, "double": 10, "triple": 13},
}
"""Trumps to show for each poignée, by player count."""

BASE_POINTS = 25
PETIT_AU_BOUT_POINTS = 10
SLAM_ANNOUNCED_MADE = 400
SLAM_UNANNOUNCED_MADE = 200
SLAM_ANNOUNCED_FAILED = -200
TOTAL_CARD_POINTS = 91.0


class _Points(dict[str, float]):
    """Card → its card points, filled on first use."""

    def __missing__(self, card: str) -> float:
        points = self[card] = french_card_points(card)
        return points


_points = _Points().__getitem__


def card_points(cards: Iterable[str]) -> float | int:
    """Sum of the card points of `cards` (the whole deck totals 91); the int 0 for no cards, as
    the views have always shown it (a compiled `float` would turn it into 0.0)."""
    return sum(map(_points, cards))


def count_oudlers(cards: Iterable[str]) -> int:
    return sum(1 for card in cards if card in OUDLERS)


def target_for(oudlers: int) -> int:
    return TARGETS[oudlers]


def rounded_difference(points: float, target: int) -> int:
    """|points − target| with a half point rounded up: the half goes to the side that wins."""
    return math.ceil(abs(points - target))


@dataclass(frozen=True, slots=True)
class HandOutcome:
    """The facts of a finished hand that the score depends on."""

    contract: str
    points: float | int
    """Card points of the taker's side (after the excuse exchange)."""
    oudlers: int
    """Oudlers held by the taker's side at the end."""
    petit_au_bout: str | None = None
    """"taker" or "defence": the side that took the last trick with the 1 of trumps in it, whoever
    played it (or the trick before, when the excuse closes a slam)."""
    poignees: tuple[str, ...] = ()
    """Levels of every poignée declared this hand, by either side."""
    slam_announced: bool = False
    slam: str | None = None
    """"taker" or "defence": the side that won every trick, if any."""


@dataclass(frozen=True, slots=True)
class HandScore:
    """The arithmetic of a hand, step by step, as the result table shows it."""

    target: int
    won: bool
    difference: int
    multiplier: int
    petit_au_bout: int
    contract_points: int
    """(±(25 + difference) + petit au bout) × multiplier."""
    poignee: int
    slam: int
    unit: int
    """What each defender pays (or receives, if negative) to the taker's side."""

    def to_json(self) -> dict[str, int | bool]:
        return {
            "target": self.target,
            "won": self.won,
            "difference": self.difference,
            "multiplier": self.multiplier,
            "petit_au_bout": self.petit_au_bout,
            "contract_points": self.contract_points,
            "poignee": self.poignee,
            "slam": self.slam,
            "unit": self.unit,
        }


def slam_bonus(announced: bool, slam: str | None) -> int:
    """Slam points added to the taker's unit."""
    bonus = 0
    if slam == "taker":
        bonus += SLAM_ANNOUNCED_MADE if announced else SLAM_UNANNOUNCED_MADE
    elif announced:
        bonus += SLAM_ANNOUNCED_FAILED
    if slam == "defence":
        bonus -= SLAM_UNANNOUNCED_MADE
    return bonus


def score_hand(outcome: HandOutcome) -> HandScore:
    """The taker's unit for one hand, with every intermediate number."""
    target = target_for(outcome.oudlers)
    won = outcome.points >= target
    sign = 1 if won else -1
    difference = rounded_difference(outcome.points, target)
    multiplier = MULTIPLIERS[outcome.contract]
    petit_by_side = {"taker": PETIT_AU_BOUT_POINTS, "defence": -PETIT_AU_BOUT_POINTS}
    petit = petit_by_side.get(outcome.petit_au_bout or "", 0)
    contract_points = (sign * (BASE_POINTS + difference) + petit) * multiplier
    poignee = sign * sum(POIGNEE_POINTS[level] for level in outcome.poignees)
    slam = slam_bonus(outcome.slam_announced, outcome.slam)
    return HandScore(
        target=target,
        won=won,
        difference=difference,
        multiplier=multiplier,
        petit_au_bout=petit,
        contract_points=contract_points,
        poignee=poignee,
        slam=slam,
        unit=contract_points + poignee + slam,
    )


def seat_shares(players: int, taker: int, partner: int | None, unit: int) -> list[int]:
    """Each seat's score for a hand: defenders −unit; the taker the opposite of their sum, or
    with a partner (five players) the taker two shares and the partner one."""
    shares = [-unit] * players
    if partner is None or partner == taker:
        shares[taker] = unit * (players - 1)
    else:
        shares[taker] = 2 * unit
        shares[partner] = unit
    return shares


def excuse_settlement(owner_side_pile: Sequence[str], excuse_owed: bool) -> tuple[str | None, bool]:
    """Which card the excuse's side hands over in exchange for keeping the excuse.

    Returns (card given, paid). The side gives one of its half-point cards; a side that never
    won such a card keeps the excuse without paying (RULINGS: it pays as soon as it has one, and
    a side with no trick at all has nothing to pay with).
    """
    if not excuse_owed:
        return None, False
    for card in owner_side_pile:
        if card != "EX" and french_card_points(card) == 0.5:
            return card, True
    return None, False
