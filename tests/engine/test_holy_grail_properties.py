"""Holy Grail by random play at every player count: the contract's promises and the game's
invariants (cards conserved, zero-sum hands, scores equal to the scoring function)."""

from __future__ import annotations

import random

import pytest

from engine import CHANCE, get_game
from engine.bots import bot_action
from engine.games.holy_grail.cards import card_set
from engine.games.holy_grail.scoring import score_hand
from tests.engine.contract_checks import play_random_match

GAME = get_game("holy-grail")


@pytest.mark.parametrize("players", range(3, 11))
def test_random_matches_keep_the_contract(players):
    for seed in range(2):
        match = play_random_match(GAME, players, seed=seed * 100 + players, options={"hands": 2})
        assert len(match.hands) == 2
        for hand in match.hands:
            assert sum(hand["scores"]) == 0, "every hand is zero-sum"
            piles = hand["details"]["captured_hearts"]
            hearts = sorted(c for c in card_set(players) if c.startswith("H"))
            assert sorted(c for pile in piles for c in pile) == hearts
            assert score_hand(piles, len(hearts)).scores == hand["scores"]


@pytest.mark.parametrize("players", [3, 4, 7, 10])
def test_cards_are_conserved_during_play(players):
    rng = random.Random(players)
    match = GAME.new_match(players, {"hands": 1})
    total = len(card_set(players))
    played = 0
    while not match.is_over:
        seat = match.to_act()[0]
        if seat == CHANCE:
            match.deal_random(rng)
            continue
        view = match.view(None)
        trick_cards = len(view["trick"]["cards"])
        completed = played - trick_cards
        assert sum(view["hand_counts"]) + view["stock_count"] + played == total
        assert completed % players == 0
        match.apply(seat, rng.choice(match.legal_actions(seat)))
        played += 1
    assert played == total


@pytest.mark.parametrize("players", [3, 5, 8])
def test_bots_play_whole_matches_legally(players):
    rng = random.Random(7)
    match = GAME.new_match(players, {"hands": 2}, seed=3)
    while not match.is_over:
        seat = match.to_act()[0]
        if seat == CHANCE:
            match.deal_random(rng)
        else:
            action = bot_action(match, seat, rng)
            assert action in match.legal_actions(seat)
            match.apply(seat, action)
    assert sum(match.scores) == 0


def test_bots_collect_more_heart_points_than_a_random_player():
    """Seed 002 rewards taking hearts: three bots against one random player over 60 hands, each
    bot collects more heart points than the random player."""
    rng = random.Random(11)
    points = [0, 0, 0, 0]
    for _ in range(60):
        match = GAME.new_match(4, {"hands": 1})
        while not match.is_over:
            seat = match.to_act()[0]
            if seat == CHANCE:
                match.deal_random(rng)
            elif seat == 0:
                match.apply(seat, rng.choice(match.legal_actions(seat)))
            else:
                match.apply(seat, bot_action(match, seat, rng))
        points = [t + p for t, p in zip(points, match.hands[0]["details"]["points"], strict=True)]
    assert points[0] < min(points[1:])
