"""Scoring of a finished Fairy Five Hundred hand: pure functions of the hand's outcome.

There are four kinds of hand, each with its own function: a trick contract (with lieutenants,
slams and the classical 250 guarantee), a misère (with the declaration and the F bonus
multipliers), Ramsch (everyone tries to lose), and the classical option's all-pass game worth
10 per trick. Each returns the per-seat scores and the facts that explain them, so the table can
show why a hand scored what it did.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from engine.games.fairy_500.bids import DECLARATION_FACTOR
from engine.games.fairy_500.deck import FAIRIES_ASCENDING

TARGET = 500
"""The match ends after a hand that leaves someone at +500 or more, or −500 or less."""

SMALL_SLAM_BONUS = 100
GRAND_SLAM_BONUS = 300
CLASSICAL_ALL_TRICKS_FLOOR = 250
DEFENDER_PER_TRICK = 10
RAMSCH_PER_TRICK = -50
RAMSCH_SUCCESS_BONUS = {1: 300, 2: 150, 3: 100, 4: 80, 5: 60}
RAMSCH_SUCCESS_BONUS_MANY = 50
"""Six or more successful players share this figure."""
TEN_PER_TRICK = 10


@dataclass(frozen=True, slots=True)
class HandResult:
    """Per-seat scores of one hand and the facts behind them (JSON-ready)."""

    scores: list[int]
    details: dict[str, Any] = field(default_factory=dict)


def _whole(value: Fraction) -> int:
    """Every rule of the seed lands on whole points; keep them as ints on the wire."""
    if value.denominator != 1:
        raise ValueError(f"a score of {value} is not a whole number of points")
    return int(value)


def sort_fairies(fairies: list[str]) -> list[str]:
    """The given F's from weakest to strongest (魔剣, 聖樹, 金貨, 聖杯)."""
    return [card for card in FAIRIES_ASCENDING if card in fairies]


# ---- trick contracts -----------------------------------------------------------------------
def slam_bonus(bid_tricks: int, side_tricks: int) -> int:
    """Small slam: 9 bid and at least 9 taken; grand slam: 10 bid and 10 taken."""
    if bid_tricks == 9 and side_tricks >= 9:
        return SMALL_SLAM_BONUS
    if bid_tricks == 10 and side_tricks == 10:
        return GRAND_SLAM_BONUS
    return 0


def score_contract(
    *,
    players: int,
    declarer: int,
    bid_tricks: int,
    points: int,
    tricks: list[int],
    named_holders: list[int],
    partner: int | None = None,
    classical: bool = False,
) -> HandResult:
    """Score a trick contract.

    `named_holders[i]` is the seat that held the i-th named card for play (the declarer when it
    sat in the declarer's hand, the kitty or the discards); `partner` is the permanent partner
    of the 4-player partnership option. The side (declarer, lieutenants, partner) makes the
    contract with at least `bid_tricks` tricks. T is the base plus the slam bonus on success,
    minus the base on failure; each named card is a half share of T, so a lieutenant with one
    named card scores T/2 (both: T) and the declarer T plus T/2 per named card it kept. A
    partner scores like a lieutenant. Defenders score 10 a trick.
    """
    side = {declarer, *named_holders}
    if partner is not None:
        side.add(partner)
    side_tricks = sum(tricks[seat] for seat in side)
    made = side_tricks >= bid_tricks
    bonus = slam_bonus(bid_tricks, side_tricks) if made else 0
    total = points + bonus if made else -points
    floor_bonus = 0
    if classical and side_tricks == 10:
        floor_bonus = max(0, CLASSICAL_ALL_TRICKS_FLOOR - total)
        total += floor_bonus
    half = Fraction(total, 2)
    scores: list[Fraction] = [Fraction(0)] * players
    scores[declarer] += total
    for holder in named_holders:
        scores[holder] += half
    if partner is not None:
        scores[partner] += half
    for seat in range(players):
        if seat not in side:
            scores[seat] = Fraction(DEFENDER_PER_TRICK * tricks[seat])
    kept = named_holders.count(declarer)
    lieutenants = sorted({seat for seat in named_holders if seat != declarer})
    details = {
        "kind": "contract",
        "declarer": declarer,
        "bid_tricks": bid_tricks,
        "points": points,
        "side": sorted(side),
        "side_tricks": side_tricks,
        "made": made,
        "slam_bonus": bonus,
        "classical_bonus": floor_bonus,
        "total": total,
        "lieutenants": lieutenants,
        "partner": partner,
        "named_kept_by_declarer": kept,
        "declarer_factor": float(Fraction(2 + kept, 2)),
        "tricks": list(tricks),
    }
    return HandResult([_whole(s) for s in scores], details)


# ---- misère ------------------------------------------------------------------------------------
_FIRST_FAIRY_FACTOR = {
    # (first F is 聖杯?, declaration) -> factor
    (True, "crazy"): Fraction(2),
    (True, "double"): Fraction(15, 2),
    (True, None): Fraction(10),
    (False, "crazy"): Fraction(1),
    (False, "double"): Fraction(3, 2),
    (False, None): Fraction(2),
}


def misere_bonus_steps(declaration: str | None, play_fairies: list[str]) -> list[tuple[str, Fraction]]:
    """The bonus factor each F of the play hand adds, weakest F first.

    The first F turns the hand into a crazy (聖杯 F) or double (any other F) misère: ×10 or ×2
    when nothing was declared, ×2 or ×1.5 on top of a matching declaration, ×7.5 when a double
    was declared and the 聖杯 F is the only one, ×1 when a crazy was declared but a weaker F
    comes first. Every further F doubles.
    """
    ordered = sort_fairies(play_fairies)
    steps: list[tuple[str, Fraction]] = []
    for index, card in enumerate(ordered):
        if index == 0:
            steps.append((card, _FIRST_FAIRY_FACTOR[(card == "HF", declaration)]))
        else:
            steps.append((card, Fraction(2)))
    return steps


def declaration_met(declaration: str | None, play_fairies: list[str]) -> bool:
    """A double needs some F in the play hand, a crazy needs the 聖杯 F."""
    if declaration == "double":
        return bool(play_fairies)
    if declaration == "crazy":
        return "HF" in play_fairies
    return True


def score_misere(
    *,
    players: int,
    declarer: int,
    kind_points: int,
    declaration: str | None,
    declarer_tricks: int,
    play_fairies: list[str],
) -> HandResult:
    """Score a misère. `kind_points` is the kind's base at this table size (before the
    declaration); `play_fairies` are the F's in the hand the declarer played with (after the
    kitty exchange: discarded F's do not count). Success needs no trick taken and the declared
    F present; it scores the declared points times the F bonus, a failure loses the declared
    points. Every other seat (a partnership partner too) scores 10 per trick the declarer took.
    """
    declared_points = kind_points * DECLARATION_FACTOR[declaration]
    met = declaration_met(declaration, play_fairies)
    made = declarer_tricks == 0 and met
    steps = misere_bonus_steps(declaration, play_fairies) if made else []
    factor = Fraction(1)
    for _, step in steps:
        factor *= step
    declarer_score = declared_points * factor if made else Fraction(-declared_points)
    scores = [DEFENDER_PER_TRICK * declarer_tricks] * players
    scores[declarer] = _whole(Fraction(declarer_score))
    details = {
        "kind": "misere",
        "declarer": declarer,
        "kind_points": kind_points,
        "declaration": declaration,
        "declared_points": declared_points,
        "declarer_tricks": declarer_tricks,
        "declaration_met": met,
        "made": made,
        "play_fairies": sort_fairies(play_fairies),
        "bonus_steps": [{"card": card, "factor": float(step)} for card, step in steps],
        "bonus_factor": float(factor),
    }
    return HandResult(scores, details)


# ---- Ramsch --------------------------------------------------------------------------------------
def ramsch_success_bonus(successful: int) -> int:
    return RAMSCH_SUCCESS_BONUS.get(successful, RAMSCH_SUCCESS_BONUS_MANY) if successful else 0


def ramsch_factor(dealt_fairies: list[str]) -> int:
    """×10 for the 聖杯 F, ×2 for each other F dealt to a successful player."""
    factor = 1
    for card in dealt_fairies:
        factor *= 10 if card == "HF" else 2
    return factor


def score_ramsch(*, tricks: list[int], fairy_tricks: list[int], dealt_fairies: list[list[str]]) -> HandResult:
    """Score a Ramsch. A trick counts against its winner unless an F won it; a player with no
    counted trick succeeded and shares the success bonus (by how many succeeded), times its
    F factor; everyone else loses 50 per counted trick."""
    counted = [won - by_fairy for won, by_fairy in zip(tricks, fairy_tricks, strict=True)]
    successful = [seat for seat, n in enumerate(counted) if n == 0]
    bonus = ramsch_success_bonus(len(successful))
    factors = [ramsch_factor(fairies) for fairies in dealt_fairies]
    scores = [
        bonus * factors[seat] if counted[seat] == 0 else RAMSCH_PER_TRICK * counted[seat]
        for seat in range(len(tricks))
    ]
    details = {
        "kind": "ramsch",
        "tricks": list(tricks),
        "fairy_tricks": list(fairy_tricks),
        "counted_tricks": counted,
        "successful": successful,
        "success_bonus": bonus,
        "factors": [factors[s] if counted[s] == 0 else 1 for s in range(len(tricks))],
        "fairies": [sort_fairies(f) if counted[s] == 0 else [] for s, f in enumerate(dealt_fairies)],
    }
    return HandResult(scores, details)


# ---- the classical all-pass game ----------------------------------------------------------
def score_ten_per_trick(tricks: list[int]) -> HandResult:
    """The classical option's answer to an all-pass: every trick is worth 10 to its winner."""
    return HandResult([TEN_PER_TRICK * n for n in tricks], {"kind": "ten_per_trick", "tricks": list(tricks)})


def match_reached_target(scores: list[int | float]) -> bool:
    return any(abs(score) >= TARGET for score in scores)
