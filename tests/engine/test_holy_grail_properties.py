"""Holy Grail's own invariants for the contract suite (tests/engine/test_contract.py), at every
player count: cards conserved during play, zero-sum hands, scores equal to the scoring function;
and the bots against a random player."""

from __future__ import annotations

import random

from engine import CHANCE, Match, get_game
from engine.bots import bot_action
from engine.games.holy_grail.cards import card_set
from engine.games.holy_grail.scoring import score_hand
from tests.engine.contract_checks import GameChecks, Variant

GAME = get_game("holy-grail")


def check_cards_are_conserved(match: Match, played: list[str]) -> None:
    """Every card is in a hand, the stock or played this hand, and completed tricks hold one
    card a seat."""
    view = match.view(None)
    trick_cards = len(view["trick"]["cards"])
    assert sum(view["hand_counts"]) + view["stock_count"] + len(played) == len(card_set(match.players))
    assert (len(played) - trick_cards) % match.players == 0


def check_every_card_is_played(match: Match, played: list[str]) -> None:
    """A hand ends when every card was played."""
    assert sorted(played) == sorted(card_set(match.players))


def check_hands_are_zero_sum_and_score_their_hearts(match: Match) -> None:
    """The match plays the hands it was set to; every hand is zero-sum, its captured piles hold
    every heart, and its scores are what the scoring function gives for them."""
    assert len(match.hands) == match.options.hands
    hearts = sorted(c for c in card_set(match.players) if c.startswith("H"))
    for hand in match.hands:
        assert sum(hand["scores"]) == 0, "every hand is zero-sum"
        piles = hand["details"]["captured_hearts"]
        assert sorted(c for pile in piles for c in pile) == hearts
        assert score_hand(piles, len(hearts)).scores == hand["scores"]
    assert sum(match.scores) == 0


CHECKS = GameChecks(
    random_play=[Variant(players, {"hands": 2}, seeds=(players, 100 + players)) for players in range(3, 11)],
    bot_play=[Variant(players, {"hands": 2}, seeds=(3,)) for players in (3, 5, 8)],
    check_turn=check_cards_are_conserved,
    check_hand_over=check_every_card_is_played,
    check_result=check_hands_are_zero_sum_and_score_their_hearts,
)


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
