"""French Tarot scoring: the worked examples of the issue and docs/RULINGS.md, number by number."""

from __future__ import annotations

import pytest

from engine.cards import french_tarot_deck
from engine.games.french_tarot.scoring import (
    HandOutcome,
    card_points,
    count_oudlers,
    excuse_settlement,
    rounded_difference,
    score_hand,
    seat_shares,
    slam_bonus,
    target_for,
)


def test_the_whole_deck_is_worth_91_points_with_three_oudlers() -> None:
    """Seed 004, card points table: oudlers and kings 4.5, queens 3.5, knights 2.5, jacks 1.5, rest 0.5."""
    deck = french_tarot_deck()
    assert card_points(deck) == 91
    assert count_oudlers(deck) == 3
    sample = ["T21", "T1", "EX", "SK", "HQ", "DC", "CJ", "S7", "T12"]
    assert card_points(sample) == 4.5 * 4 + 3.5 + 2.5 + 1.5 + 1


@pytest.mark.parametrize(("oudlers", "target"), [(0, 56), (1, 51), (2, 41), (3, 36)])
def test_target_depends_on_the_takers_oudlers(oudlers: int, target: int) -> None:
    """Seed 004, target table: 0/1/2/3 oudlers need 56/51/41/36 points."""
    assert target_for(oudlers) == target


def test_four_players_garde_sans_with_double_poignee_and_petit_au_bout() -> None:
    """Issue 5: 4 players, garde sans, 2 oudlers, 70 points, double poignée and petit au bout for
    the taker give the taker +858 and each defender −286."""
    score = score_hand(
        HandOutcome(contract="garde_sans", points=70, oudlers=2, petit_au_bout="taker", poignees=("double",))
    )
    assert (score.target, score.difference, score.multiplier) == (41, 29, 4)
    assert score.contract_points == (25 + 29 + 10) * 4
    assert score.poignee == 30
    assert score.unit == 286
    assert seat_shares(4, taker=0, partner=None, unit=score.unit) == [858, -286, -286, -286]


def test_three_players_garde_one_oudler_58_points_with_petit_au_bout() -> None:
    """Issue 5: 3 players, garde, 1 oudler, 58 points, petit au bout to the taker: +168 and −84 each."""
    score = score_hand(HandOutcome(contract="garde", points=58, oudlers=1, petit_au_bout="taker"))
    assert score.unit == 84
    assert seat_shares(3, taker=2, partner=None, unit=score.unit) == [-84, -84, 168]


def test_five_players_garde_sans_with_a_partner_or_alone() -> None:
    """Issue 5: 5 players, garde sans, 2 oudlers, 53 points gives +296, the partner +148 and −148
    each, or alone +592 and −148 each."""
    score = score_hand(HandOutcome(contract="garde_sans", points=53, oudlers=2))
    assert score.unit == 148
    assert seat_shares(5, taker=1, partner=3, unit=148) == [-148, 296, -148, 148, -148]
    assert seat_shares(5, taker=1, partner=None, unit=148) == [-148, 592, -148, -148, -148]


def test_exactly_the_target_wins() -> None:
    """Seed 004: the taker succeeds with the target or more; RULINGS: exactly the target wins."""
    score = score_hand(HandOutcome(contract="prise", points=56, oudlers=0))
    assert score.won and score.difference == 0 and score.unit == 25


def test_a_half_point_goes_to_the_winning_side() -> None:
    """RULINGS: half points go to the side that wins, so a difference of 0.5 counts as 1."""
    assert rounded_difference(41.5, 41) == 1
    assert rounded_difference(40.5, 41) == 1
    won = score_hand(HandOutcome(contract="prise", points=41.5, oudlers=2))
    lost = score_hand(HandOutcome(contract="prise", points=40.5, oudlers=2))
    assert (won.won, won.unit) == (True, 26)
    assert (lost.won, lost.unit) == (False, -26)


def test_a_lost_contract_with_petit_au_bout_for_the_defence() -> None:
    """RULINGS formula: garde, 0 oudlers, 50 points (6 short), petit au bout lost to the defence:
    (−(25 + 6) − 10) × 2 = −82 per defender, the taker −246 at four players."""
    score = score_hand(HandOutcome(contract="garde", points=50, oudlers=0, petit_au_bout="defence"))
    assert score.contract_points == -82
    assert seat_shares(4, 0, None, score.unit) == [-246, 82, 82, 82]


def test_petit_au_bout_counts_against_the_result_of_the_contract() -> None:
    """RULINGS: the petit au bout belongs to the side that took it, even when the taker loses."""
    score = score_hand(HandOutcome(contract="prise", points=40, oudlers=1, petit_au_bout="taker"))
    assert score.contract_points == -(25 + 11) + 10


def test_poignee_is_not_multiplied_and_goes_to_the_side_that_wins() -> None:
    """RULINGS: poignée 20/30/40, not multiplied, to the winning side (here the defence)."""
    outcome = HandOutcome(contract="garde_contre", points=30, oudlers=1, poignees=("simple", "triple"))
    score = score_hand(outcome)
    assert score.contract_points == -(25 + 21) * 6
    assert score.poignee == -60
    assert score.unit == -276 - 60


@pytest.mark.parametrize(
    ("announced", "slam", "bonus"),
    [
        (True, "taker", 400),
        (False, "taker", 200),
        (True, None, -200),
        (False, None, 0),
        (False, "defence", -200),
    ],
)
def test_slam_bonuses(announced: bool, slam: str | None, bonus: int) -> None:
    """Seed 004, slam: announced and made +400, made unannounced +200, announced and failed −200
    (a defence slam is worth 200 to the defence under the federation rules)."""
    assert slam_bonus(announced, slam) == bonus


def test_slam_bonus_is_added_after_the_multiplier() -> None:
    """Seed 004 + RULINGS: garde sans, 3 oudlers, all 91 points and an announced slam."""
    outcome = HandOutcome(contract="garde_sans", points=91, oudlers=3, slam_announced=True, slam="taker")
    score = score_hand(outcome)
    assert score.unit == (25 + 55) * 4 + 400


def test_the_excuse_is_paid_for_with_a_half_point_card_when_the_side_has_one() -> None:
    """RULINGS: the excuse's side keeps it and gives a half-point card in exchange."""
    assert excuse_settlement(["SK", "EX", "H3"], excuse_owed=True) == ("H3", True)
    assert excuse_settlement(["SK", "EX", "HQ"], excuse_owed=True) == (None, False)
    assert excuse_settlement(["SK", "EX", "H3"], excuse_owed=False) == (None, False)


def test_shares_always_sum_to_zero() -> None:
    for players in (3, 4, 5):
        assert sum(seat_shares(players, 1, None, 137)) == 0
    assert sum(seat_shares(5, 1, 4, -137)) == 0
