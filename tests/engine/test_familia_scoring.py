"""Familia scoring against every worked example of seed 001 and the rulings: role values,
singles by sex, zero-sum and misère bonuses, the best free split, the joker-forced split, and
the ranking tie-breaks."""

from __future__ import annotations

import pytest

from engine.games.familia.scoring import (
    best_partition,
    face_card_points,
    forced_partition,
    misere_bonus,
    rank_places,
    score_player,
    single_points,
    zero_sum_bonus,
)


def total(cards: list[str], sex: str = "M", crest: str | None = None, tricks: int = 1, sets: int = 1) -> int:
    return score_player(cards, sex, crest, tricks, sets).total


# ---- roles and singles ------------------------------------------------------------------------
def test_role_values_familia_family_marriage() -> None:
    # seed 001: familia (one rank in all four suits) 20, family (K Q J of a suit) 15, marriage 10
    assert total(["SK", "HK", "DK", "CK"]) == 20
    assert total(["HK", "HQ", "HJ"]) == 15
    assert total(["DK", "DQ"]) == 10


def test_singles_score_for_the_own_sex_and_cost_double_for_the_other() -> None:
    # seed 001: man K +3, Q -4, J +1; woman K -6, Q +2, J -2
    assert [single_points(c, "M") for c in ("SK", "SQ", "SJ")] == [3, -4, 1]
    assert [single_points(c, "F") for c in ("SK", "SQ", "SJ")] == [-6, 2, -2]
    assert total(["SK"], "M") == 3 and total(["SQ"], "M") == -4
    assert total(["HK"], "F") == -6 and total(["HQ", "DQ"], "F") == 4


def test_royal_roles_in_the_crest_suit_are_doubled() -> None:
    # seed 001, royal option: royal family 30, royal marriage 20; other suits stay plain
    assert total(["SK", "SQ", "SJ"], crest="S") == 30
    assert total(["SK", "SQ"], crest="S") == 20
    assert total(["HK", "HQ"], crest="S") == 10


# ---- bonuses ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("cards", "sex", "expected"),
    [
        (["X"], "M", 2),  # seed 001: a lone joker, 2
        (["SK", "HQ", "DJ"], "M", 6),  # a man's K, Q, J, 6
        (["SK", "HJ", "X", "DQ", "CQ"], "M", 10),  # K, J, joker and two Q's, 10
        (["HQ", "DJ"], "F", 4),  # a woman's Q and J, 4
        (["SK", "HQ", "DQ", "CQ"], "F", 8),  # a woman's K and three Q's, 8
    ],
)
def test_seed_zero_sum_examples(cards: list[str], sex: str, expected: int) -> None:
    result = score_player(cards, sex, None, 1, 1)
    assert result.zero_sum_bonus == expected
    assert result.total == expected, "the singles add up to zero, so the bonus is the score"


def test_zero_sum_needs_at_least_one_single_and_an_exact_zero() -> None:
    assert zero_sum_bonus([]) == 0
    assert zero_sum_bonus([3, -4]) == 0
    assert zero_sum_bonus([3, -4, 1]) == 6


def test_misere_pays_6_18_54_by_face_card_sets() -> None:
    # seed 001: no trick taken gives 6, tripled per extra set of face cards
    assert [misere_bonus(n) for n in (1, 2, 3)] == [6, 18, 54]
    assert score_player([], "F", None, 0, 2).total == 18
    assert score_player([], "F", None, 0, 2).misere_bonus == 18


# ---- the split into roles ------------------------------------------------------------------------------
def test_without_a_joker_the_engine_picks_the_split_that_scores_most() -> None:
    # two marriages and two kings (20 + 6) beat a familia of kings with two queens left (20 - 8)
    roles, singles = best_partition(["SK", "SQ", "HK", "HQ", "DK", "CK"], "M")
    assert sorted(r.kind for r in roles) == ["marriage", "marriage"]
    assert total(["SK", "SQ", "HK", "HQ", "DK", "CK"]) == 26


def test_the_best_split_counts_the_zero_sum_bonus() -> None:
    # a woman with K and Q of spades and two more queens: marriage 10 + 4 = 14 beats zero-sum 8
    assert total(["SK", "SQ", "HQ", "DQ"], "F") == 14
    # a man with K, Q, J of hearts: the family (15) beats the zero-sum singles (6)
    assert total(["HK", "HQ", "HJ"], "M") == 15


def test_a_joker_cancels_the_highest_role_in_the_fixed_order() -> None:
    # seed 001: roles are formed greedily (royal, familia, family, marriage, singles) and each
    # joker makes the highest one worth 0
    roles, singles = forced_partition(["SK", "SQ", "HK", "HQ", "DK", "CK", "X"], "M")
    assert roles[0].kind == "familia" and roles[0].zeroed
    assert [s.cards[0] for s in singles] == ["SQ", "HQ", "X"]
    assert total(["SK", "SQ", "HK", "HQ", "DK", "CK", "X"]) == -8


def test_two_jokers_cancel_the_two_highest_roles() -> None:
    # seed 001: as many roles go to 0 as jokers were won, from the top
    result = score_player(["HK", "HQ", "HJ", "SK", "SQ", "DK", "X", "X"], "M", None, 2, 1)
    kinds = [(r.kind, r.zeroed) for r in result.roles]
    assert kinds == [("family", True), ("marriage", True)]
    assert result.total == 3, "only the single king scores; singles 3, 0, 0 are not zero-sum"


def test_four_jokers_cancel_the_four_highest_roles_singles_included() -> None:
    # seed 001: four jokers zero the top four roles of the fixed order; for a man that is the
    # family, the marriage, then his single Q and single K, leaving the J
    won = ["HK", "HQ", "HJ", "SK", "SQ", "DQ", "CK", "CJ", "X", "X", "X", "X"]
    result = score_player(won, "M", None, 4, 1)
    assert [(r.kind, r.zeroed) for r in result.roles] == [("family", True), ("marriage", True)]
    zeroed = [s.cards[0] for s in result.singles if s.zeroed]
    assert zeroed == ["DQ", "CK"]
    assert result.total == 1, "the single J; singles 0, 0, 1 and four jokers are not zero-sum"


def test_singles_are_cancelled_in_the_seeds_order_by_sex() -> None:
    # seed 001: a man's singles go Q, K, J; a woman's K, J, Q
    man = score_player(["SK", "HQ", "DJ", "X"], "M", None, 1, 1)
    assert [s.cards[0] for s in man.singles if s.zeroed] == ["HQ"]
    assert man.total == 3 + 1
    woman = score_player(["SK", "HQ", "DJ", "X"], "F", None, 1, 1)
    assert [s.cards[0] for s in woman.singles if s.zeroed] == ["SK"]
    assert woman.total == 2 - 2 + 2 * 4, "Q and J cancel: zero-sum over four singles"


def test_royal_roles_come_first_when_a_joker_forces_the_order() -> None:
    result = score_player(["SK", "SQ", "SJ", "HK", "HQ", "X"], "M", "S", 1, 1)
    assert [(r.kind, r.zeroed) for r in result.roles] == [("royal_family", True), ("marriage", False)]
    assert result.total == 10 + 2, "the marriage, plus the lone joker single: zero-sum 2"


def test_a_player_with_many_cards_is_scored_quickly_and_exactly() -> None:
    cards = [s + r for s in "SHDC" for r in "KQJ"] * 3
    # three full sets: nine familias or twelve families, 180 either way, nothing left single
    assert total(cards, "M") == 180
    # one more king for a woman: eight familias, a marriage and three queens (160 + 10 + 6)
    # beat keeping the twelve families and a costly single king (180 - 6)
    assert total(cards + ["SK"], "F") == 176


# ---- ranking -----------------------------------------------------------------------------------------------
def test_seed_ranking_example_three_players_tied_on_six() -> None:
    # seed 001: men's individual game, all on 6 points: A marriage + Q (3 cards, 7 points),
    # B zero-sum K Q J (3 cards, 6 points), C misère (0 cards) -> C, B, A
    a, b, c = ["SK", "SQ", "HQ"], ["DK", "HQ", "CJ"], []
    assert total(a) == total(b) == score_player(c, "M", None, 0, 1).total == 6
    places = rank_places([(6, len(a), face_card_points(a)), (6, len(b), face_card_points(b)), (6, 0, 0)])
    assert places == [3, 2, 1]


def test_full_ties_share_a_place() -> None:
    assert rank_places([(5, 2, 3), (5, 2, 3), (9, 4, 4)]) == [2, 2, 1]
    assert face_card_points(["SK", "HQ", "DJ", "X"]) == 6
