"""Every game refuses a shuffle that is not exactly its card set, whatever is wrong with it."""

from __future__ import annotations

import random

import pytest

from engine import CHANCE, GAMES, IllegalAction
from engine.chance import checked_order, shuffle, shuffle_action


def test_shuffle_action_is_a_permutation_drawn_from_the_rng():
    cards = ["S1", "S2", "S2", "H3"]
    action = shuffle_action(cards, random.Random(1))
    assert action["type"] == "shuffle" and sorted(action["deck"]) == sorted(cards)
    assert shuffle_action(cards, random.Random(1)) == action


@pytest.mark.parametrize("size", [0, 1, 2, 3, 52, 78, 112, 200, 255, 256, 600])
def test_shuffle_deals_the_order_random_shuffle_deals_and_leaves_the_rng_alike(size):
    """Seeds keep dealing the same cards: the engine's shuffle is `random.shuffle`, number for number."""
    for seed in range(40):
        ours, theirs = random.Random(seed), random.Random(seed)
        deck = [f"C{n}" for n in range(size)]
        expected = list(deck)
        theirs.shuffle(expected)
        shuffle(deck, ours)
        assert deck == expected
        assert ours.getstate() == theirs.getstate()


def test_shuffle_lets_another_generator_shuffle_itself():
    class Reversing(random.Random):
        def shuffle(self, x):
            x.reverse()

    deck = ["S1", "S2", "S3"]
    shuffle(deck, Reversing(0))
    assert deck == ["S3", "S2", "S1"]


@pytest.mark.parametrize(
    "order",
    [
        None,
        "S1 S2 S2 H3",
        ["S1", "S2", "H3"],
        ["S1", "S2", "H3", "H3"],
        ["S1", "S2", 2, "H3"],
        ["S1", "S2", "S2", None],
    ],
)
def test_checked_order_refuses_anything_but_the_same_cards(order):
    with pytest.raises(IllegalAction, match="order of this game's 4 cards"):
        checked_order(order, ["S1", "S2", "S2", "H3"])


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_shuffle_with_a_foreign_item_is_refused_and_changes_nothing(game_id):
    game = GAMES[game_id]
    match = game.new_match(game.min_players + 1 if game.min_players < game.max_players else game.min_players)
    rng = random.Random(0)
    while True:
        action = match.random_chance_action(rng)
        if action["type"] == "shuffle":
            break
        match.apply(CHANCE, action)
    before = len(match.log), match.view(None)
    broken = dict(action, deck=[*action["deck"][:-1], 7])
    with pytest.raises(IllegalAction):
        match.apply(CHANCE, broken)
    assert (len(match.log), match.view(None)) == before
    match.apply(CHANCE, action)
