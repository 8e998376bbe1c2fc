"""Holy Grail scoring against every worked example of seed 002."""

from __future__ import annotations

from engine.games.holy_grail.cards import card_set
from engine.games.holy_grail.scoring import BASE_POINTS, heart_points, score_hand

HEARTS = ["H-1", "H0", *(f"H{n}" for n in range(1, 16)), "HI", "HJ", "HC", "HQ", "HK"]


def test_heart_values_total_240_or_252_at_seven_and_nine_players():
    # Seed 002: all hearts are worth 240, or 252 with 7 and 9 players (−1 and ∞ worth 26).
    for players in range(3, 11):
        total = sum(heart_points(c, players) for c in card_set(players) if c.startswith("H"))
        assert total == (252 if players in (7, 9) else 240)
        assert total == BASE_POINTS[players] * players, "the base makes every hand zero-sum"
    assert heart_points("H1", 4) == 1
    assert heart_points("H14", 4) == 14
    assert heart_points("HQ", 4) == 20
    assert heart_points("H0", 4) == 0
    assert heart_points("HI", 7) == heart_points("H-1", 9) == 26


def _split(piles: list[list[str]]) -> list[list[str]]:
    """Give every heart not named in `piles` to the last seat, except the 0 (if unnamed), which
    goes to the seat before it so that no doubling or flip happens by accident."""
    named = {c for pile in piles for c in pile}
    piles = [list(p) for p in piles]
    piles[-1] += [c for c in HEARTS if c not in named and c != "H0"]
    if "H0" not in named:
        piles[-2].append("H0")
    return piles


def test_seed_example_80_points_at_four_players_scores_plus_20_and_40_scores_minus_20():
    # 80 points: K, Q, Q-equivalents… build exactly 80 and 40 from face cards.
    piles = _split([["HK", "HQ", "HC", "HJ"], ["HI", "H15", "H5"], [], []])
    result = score_hand(piles, len(HEARTS))
    assert result.points[0] == 80 and result.scores[0] == 20
    assert result.points[1] == 40 and result.scores[1] == -20
    assert sum(result.scores) == 0
    assert not result.doubled and not result.flipped


def test_infinity_with_zero_doubles_every_score():
    # Seed 002: +20 becomes +40 and −20 becomes −40.
    piles = _split([["HK", "HQ", "HC", "HJ"], ["HI", "H0", "H15", "H5"], [], []])
    result = score_hand(piles, len(HEARTS))
    assert result.doubled and not result.flipped
    assert result.scores[0] == 40 and result.scores[1] == -40


def test_minus_one_with_zero_flips_every_sign():
    # Seed 002: +20 becomes −20 and −20 becomes +20.
    piles = _split([["HK", "HQ", "HC", "HJ"], ["H-1", "H0", "H15", "H5"], [], []])
    result = score_hand(piles, len(HEARTS))
    assert result.flipped and not result.doubled
    assert result.scores[0] == -20 and result.scores[1] == 20


def test_zero_minus_one_and_infinity_together_flip_and_double():
    # Seed 002: +20 becomes −40 and −20 becomes +40.
    piles = _split([["HK", "HQ", "HC", "HJ"], ["H-1", "H0", "HI"], [], []])
    result = score_hand(piles, len(HEARTS))
    assert result.points[1] == 40
    assert result.doubled and result.flipped
    assert result.scores[0] == -40 and result.scores[1] == 40


def test_zero_and_infinity_in_different_hands_change_nothing():
    piles = _split([["HK", "HQ", "HC", "HJ", "HI"], ["H0"], [], []])
    result = score_hand(piles, len(HEARTS))
    assert not result.doubled and result.scores[0] == 100 - 60


def test_shooting_the_moon_at_four_players_gives_600_and_minus_200():
    # Seed 002's example: the player with every heart scores 200 × 3 = 600, the others −200,
    # with no doubling or flip even though that player holds 0, −1 and ∞.
    piles = [[], [], list(HEARTS), []]
    result = score_hand(piles, len(HEARTS))
    assert result.scores == [-200, -200, 600, -200]
    assert result.moon_seat == 2 and not result.doubled and not result.flipped


def test_shooting_the_moon_scales_with_player_count():
    piles = [[] for _ in range(7)]
    piles[0] = list(HEARTS)
    assert score_hand(piles, len(HEARTS)).scores == [1200] + [-200] * 6


def test_every_heart_but_the_zero_is_no_moon():
    # RULINGS: shooting the moon takes every heart, the 0 included; without it the hand scores as
    # usual (the 0's holder took neither the ∞ nor the −1, so no ×2 and no flip either).
    piles = [[], [], [c for c in HEARTS if c != "H0"], ["H0"]]
    result = score_hand(piles, len(HEARTS))
    assert result.moon_seat is None and not result.doubled and not result.flipped
    assert result.scores == [-60, -60, 240 - 60, -60]
