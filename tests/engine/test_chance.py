"""Every game refuses a shuffle that is not exactly its card set, whatever is wrong with it."""

from __future__ import annotations

import random

import pytest

from engine import CHANCE, GAMES, IllegalAction
from engine.chance import checked_order, shuffle_action


def test_shuffle_action_is_a_permutation_drawn_from_the_rng():
    cards = ["S1", "S2", "S2", "H3"]
    action = shuffle_action(cards, random.Random(1))
    assert action["type"] == "shuffle" and sorted(action["deck"]) == sorted(cards)
    assert shuffle_action(cards, random.Random(1)) == action


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
