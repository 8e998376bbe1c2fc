"""Fairy Five Hundred scoring: every branch of the seed's score rules and of docs/RULINGS.md, with numbers.

Tests cite the seed section they reproduce ("seed 000, <section>") or the ruling.
"""

from __future__ import annotations

import pytest

from engine.games.fairy_500.bids import bid_table, find_bid, misere_bid_points, trick_bid_points
from engine.games.fairy_500.scoring import (
    match_reached_target,
    misere_bonus_steps,
    ramsch_success_bonus,
    score_contract,
    score_misere,
    score_ramsch,
    score_ten_per_trick,
)

# ---- the base-point tables -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tricks", "row"),
    [
        (6, [40, 60, 80, 100, 120]),
        (7, [140, 160, 180, 200, 220]),
        (8, [240, 260, 280, 300, 320]),
        (9, [340, 360, 380, 400, 420]),
        (10, [440, 460, 480, 500, 520]),
    ],
)
def test_trick_contract_base_points_follow_the_seed_table(tricks: int, row: list[int]) -> None:
    """seed 000, base points: 魔剣, 聖樹, 金貨, 聖杯, no-trumps at 6 to 10 tricks."""
    assert [trick_bid_points(tricks, trump) for trump in ("S", "C", "D", "H", "NT")] == row


@pytest.mark.parametrize(
    ("players", "expected"),
    [
        (3, [250, 350, 450, 550]),
        (4, [250, 350, 450, 550]),
        (5, [150, 250, 350, 450]),
        (6, [150, 250, 350, 450]),
        (7, [50, 150, 250, 350]),
        (8, [50, 150, 250, 350]),
    ],
)
def test_misere_base_points_depend_on_the_player_bracket(players: int, expected: list[int]) -> None:
    """seed 000, misère table: plain, hand, open, open-hand by 3–4, 5–6, 7–8 players."""
    kinds = ["misere", "hand_misere", "open_misere", "open_hand_misere"]
    assert [misere_bid_points(kind, None, players) for kind in kinds] == expected


def test_double_and_crazy_declarations_multiply_any_misere_kind() -> None:
    """seed 000: double ×2, crazy ×10, and they combine with open / hand misère."""
    assert find_bid(4, "double_open_hand_misere").points == 1100
    assert find_bid(4, "crazy_open_hand_misere").points == 5500
    assert find_bid(6, "double_hand_misere").points == 500
    assert find_bid(8, "crazy_misere").points == 500


def test_bid_table_is_ordered_by_points_and_has_every_bid() -> None:
    """seed 000, base points: 25 trick contracts plus 4 misère kinds × 3 declarations at every size."""
    for players in range(3, 9):
        table = bid_table(players)
        assert len(table) == 25 + 12
        assert [b.points for b in table] == sorted(b.points for b in table)


# ---- trick contracts ------------------------------------------------------------------------


def test_made_contract_scores_base_and_lieutenant_half_defenders_ten_a_trick() -> None:
    """seed 000, declarer/lieutenant/defender scores: 7 聖杯 (200) made with 8 side tricks at
    4 players: declarer +200, lieutenant +100, defenders 10 a trick; no overtrick points."""
    result = score_contract(
        players=4, declarer=0, bid_tricks=7, points=200, tricks=[5, 1, 3, 1], named_holders=[2]
    )
    assert result.scores == [200, 10, 100, 10]
    assert result.details["made"] and result.details["side_tricks"] == 8


def test_failed_contract_loses_base_for_declarer_and_half_for_lieutenant() -> None:
    """seed 000: below the bid the base becomes negative; the lieutenant takes half of it."""
    result = score_contract(
        players=5, declarer=1, bid_tricks=8, points=280, tricks=[2, 4, 1, 1, 2], named_holders=[4]
    )
    assert result.scores == [20, -280, 10, 10, -140]
    assert not result.details["made"]


def test_one_named_card_kept_by_declarer_gives_one_and_a_half() -> None:
    """seed 000: a named card in the declarer's hand or discards → ×1.5 (8 聖杯 = 300 → 450)."""
    made = score_contract(
        players=5, declarer=0, bid_tricks=8, points=300, tricks=[8, 1, 1, 0, 0], named_holders=[0]
    )
    assert made.scores == [450, 10, 10, 0, 0]
    failed = score_contract(
        players=5, declarer=0, bid_tricks=8, points=300, tricks=[7, 1, 1, 1, 0], named_holders=[0]
    )
    assert failed.scores == [-450, 10, 10, 10, 0]
    assert failed.details["declarer_factor"] == 1.5


def test_two_named_cards_kept_double_the_declarer_score() -> None:
    """seed 000, 7–8 players: both named cards with the declarer → ×2."""
    result = score_contract(
        players=7, declarer=3, bid_tricks=6, points=120, tricks=[1, 1, 1, 6, 1, 0, 0], named_holders=[3, 3]
    )
    assert result.scores == [10, 10, 10, 240, 10, 0, 0]


def test_one_kept_one_lieutenant_at_seven_players() -> None:
    """RULINGS: each named card is a half share: declarer T×1.5, the lieutenant T/2."""
    result = score_contract(
        players=7, declarer=0, bid_tricks=7, points=160, tricks=[5, 2, 1, 1, 1, 0, 0], named_holders=[0, 1]
    )
    assert result.scores == [240, 80, 10, 10, 10, 0, 0]


def test_one_lieutenant_holding_both_named_cards_scores_like_the_declarer() -> None:
    """seed 000: a lieutenant with both named cards scores the same as the declarer."""
    result = score_contract(
        players=8, declarer=0, bid_tricks=6, points=40, tricks=[4, 1, 2, 1, 1, 1, 0, 0], named_holders=[2, 2]
    )
    assert result.scores == [40, 10, 40, 10, 10, 10, 0, 0]


def test_two_lieutenants_each_score_half() -> None:
    """seed 000, lieutenant score (half the declarer's, bonus included) at 8 players with two
    lieutenants; 9 魔剣 (340) made with 9 side tricks gets the small slam."""
    result = score_contract(
        players=8, declarer=5, bid_tricks=9, points=340, tricks=[0, 0, 3, 0, 1, 4, 0, 2], named_holders=[2, 7]
    )
    # side 5+2+7 has 9 tricks: small slam, T = 340 + 100 = 440
    assert result.scores == [0, 0, 220, 0, 10, 440, 0, 220]


def test_small_slam_adds_100_with_nine_or_ten_tricks() -> None:
    """seed 000, bonus: small slam = 9 bid and 9+ taken, +100 (and the lieutenant gets half of it)."""
    nine = score_contract(
        players=4, declarer=0, bid_tricks=9, points=340, tricks=[6, 0, 3, 1], named_holders=[2]
    )
    assert nine.scores == [440, 0, 220, 10]
    ten = score_contract(players=3, declarer=0, bid_tricks=9, points=420, tricks=[10, 0, 0], named_holders=[])
    assert ten.scores == [520, 0, 0]


def test_grand_slam_adds_300_only_with_all_ten() -> None:
    """seed 000, bonus: grand slam = 10 bid and 10 taken, +300; 9 of 10 is a plain failure."""
    made = score_contract(
        players=3, declarer=2, bid_tricks=10, points=520, tricks=[0, 0, 10], named_holders=[]
    )
    assert made.scores == [0, 0, 820]
    failed = score_contract(
        players=3, declarer=2, bid_tricks=10, points=520, tricks=[1, 0, 9], named_holders=[]
    )
    assert failed.scores == [10, 0, -520]


def test_no_slam_bonus_for_all_ten_under_a_lower_bid() -> None:
    """seed 000, bonus: slams need 9 or 10 tricks *bid*; 8 聖杯 taken with all ten is worth 300 only."""
    result = score_contract(
        players=3, declarer=0, bid_tricks=8, points=300, tricks=[10, 0, 0], named_holders=[]
    )
    assert result.scores == [300, 0, 0]


def test_partnership_partner_scores_like_a_lieutenant() -> None:
    """RULINGS, partnership option: the partner is the lieutenant in normal games."""
    result = score_contract(
        players=4, declarer=1, bid_tricks=6, points=100, tricks=[2, 4, 1, 3], named_holders=[], partner=3
    )
    assert result.scores == [20, 100, 10, 50]


def test_classical_all_ten_tricks_guarantees_250() -> None:
    """seed 000, classical option: a declarer's side taking all ten scores at least 250."""
    low = score_contract(
        players=4, declarer=0, bid_tricks=6, points=40, tricks=[7, 0, 3, 0], named_holders=[2], classical=True
    )
    assert low.scores == [250, 0, 125, 0]
    assert low.details["classical_bonus"] == 210
    high = score_contract(
        players=3, declarer=0, bid_tricks=8, points=300, tricks=[10, 0, 0], named_holders=[], classical=True
    )
    assert high.scores == [300, 0, 0]
    nine = score_contract(
        players=3, declarer=0, bid_tricks=6, points=40, tricks=[9, 1, 0], named_holders=[], classical=True
    )
    assert nine.scores == [40, 10, 0]


# ---- misère ------------------------------------------------------------------------------------


def _misere(kind_points: int, declaration: str | None, fairies: list[str], tricks: int = 0, players: int = 4):
    return score_misere(
        players=players,
        declarer=0,
        kind_points=kind_points,
        declaration=declaration,
        declarer_tricks=tricks,
        play_fairies=fairies,
    )


def test_plain_misere_success_without_f_scores_base() -> None:
    """seed 000: all tricks lost = success (misère at 3–4 players: 250)."""
    assert _misere(250, None, []).scores == [250, 0, 0, 0]


def test_misere_failure_loses_declared_points_and_defenders_score_per_declarer_trick() -> None:
    """seed 000, misère defenders: 10 for every trick the declarer took."""
    assert _misere(350, None, ["HF"], tricks=2).scores == [-350, 20, 20, 20]
    assert _misere(350, "double", [], tricks=3).scores == [-700, 30, 30, 30]


def test_declared_f_missing_fails_even_with_no_trick() -> None:
    """seed 000: a double without any F, or a crazy without the 聖杯 F, fails."""
    assert _misere(250, "double", []).scores == [-500, 0, 0, 0]
    assert _misere(250, "crazy", ["DF", "SF"]).scores == [-2500, 0, 0, 0]


@pytest.mark.parametrize(
    ("declaration", "fairies", "factor", "score"),
    [
        # the first (weakest) F is the 聖杯 F
        ("crazy", ["HF"], 2, 250 * 10 * 2),  # effectively ×20
        ("double", ["HF"], 7.5, 250 * 2 * 7.5),  # effectively ×15
        (None, ["HF"], 10, 2500),
        # the first F is another F
        ("double", ["DF"], 1.5, 750),  # effectively ×3
        (None, ["SF"], 2, 500),
        ("crazy", ["SF", "HF"], 2, 5000),  # RULINGS: ×1 for a weaker first F, then ×2
        # every further F doubles
        (None, ["SF", "CF"], 4, 1000),
        (None, ["HF", "SF", "CF"], 8, 2000),
        ("double", ["CF", "DF", "HF"], 6, 3000),
    ],
)
def test_misere_bonus_multipliers_judge_fs_in_ascending_strength(
    declaration: str | None, fairies: list[str], factor: float, score: float
) -> None:
    """seed 000, bonus multiply table, judged 魔剣 → 聖樹 → 金貨 → 聖杯 whatever the play order."""
    result = _misere(250, declaration, fairies)
    assert result.details["bonus_factor"] == factor
    assert result.scores[0] == score


def test_misere_bonus_steps_name_each_f_in_order() -> None:
    """seed 000, bonus multiply: judged in ascending strength, not play order (魔剣 F before 聖杯 F)."""
    steps = misere_bonus_steps(None, ["HF", "SF"])
    assert [(card, float(f)) for card, f in steps] == [("SF", 2.0), ("HF", 2.0)]


def test_misere_at_seven_players_with_double_and_hearts_f() -> None:
    """seed 000: 7–8 players misère 50; double ×2 with only the 聖杯 F ×7.5 → 750."""
    assert _misere(50, "double", ["HF"], players=7).scores == [750, 0, 0, 0, 0, 0, 0]


# ---- Ramsch -------------------------------------------------------------------------------------


def test_ramsch_single_success_takes_300_others_lose_50_a_trick() -> None:
    """seed 000, Ramsch: −50 per trick, one successful player +300."""
    result = score_ramsch(tricks=[0, 4, 6], fairy_tricks=[0, 0, 0], dealt_fairies=[[], [], []])
    assert result.scores == [300, -200, -300]


def test_ramsch_tricks_won_with_an_f_do_not_count() -> None:
    """seed 000: tricks won by an F are not counted; a player whose only tricks came from F's succeeds."""
    result = score_ramsch(tricks=[2, 3, 5], fairy_tricks=[2, 1, 0], dealt_fairies=[["CF", "DF"], ["SF"], []])
    # seat 0 succeeded alone with two non-聖杯 F's dealt: 300 × 2 × 2
    assert result.scores == [1200, -100, -250]
    assert result.details["counted_tricks"] == [0, 2, 5]


@pytest.mark.parametrize(
    ("successful", "bonus"), [(1, 300), (2, 150), (3, 100), (4, 80), (5, 60), (6, 50), (7, 50)]
)
def test_ramsch_success_bonus_by_number_of_successful_players(successful: int, bonus: int) -> None:
    """seed 000, Ramsch bonus table 300/150/100/80/60/50."""
    assert ramsch_success_bonus(successful) == bonus
    tricks = [0] * successful + [10]
    result = score_ramsch(tricks=tricks, fairy_tricks=[0] * len(tricks), dealt_fairies=[[]] * len(tricks))
    assert result.scores == [bonus] * successful + [-500]


def test_ramsch_hearts_f_gives_ten_times_and_other_fs_double() -> None:
    """seed 000: crazy Ramsch ×10 with the 聖杯 F, ×2 for each other F (RULINGS: F's as dealt)."""
    result = score_ramsch(
        tricks=[1, 0, 0, 9], fairy_tricks=[1, 0, 0, 0], dealt_fairies=[["HF", "SF"], ["DF"], [], ["CF"]]
    )
    # three successful players share 100 each; seat 0: ×10 ×2, seat 1: ×2
    assert result.scores == [2000, 200, 100, -450]


def test_ten_per_trick_game_scores_every_trick() -> None:
    """seed 000, classical option: an all-pass may be played as a game worth 10 per trick."""
    assert score_ten_per_trick([3, 3, 4]).scores == [30, 30, 40]


def test_match_target_is_plus_or_minus_500() -> None:
    """seed 000, end of game: +500 or more, or −500 or less."""
    assert match_reached_target([500, 0, 0])
    assert match_reached_target([0, -500, 10])
    assert not match_reached_target([499, -499, 0])
