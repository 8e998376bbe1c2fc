"""Hints (engine/bots.py `suggestion`): the strong bot's choice for a seat, from what that seat
may know. Two deals that differ only in the other seats' hands look the same from the seat, so
they must give the same guesses and the same hint for the same random seed."""

from __future__ import annotations

import random

from engine import CHANCE, GAMES, Match
from engine.bots import suggestion
from engine.games.yaya_fugou.deals import deck_order
from engine.infoset import InfoSet

PLAYERS = 4
MINE = ["D3", "D4", "H6", "C6", "S8", "H9", "D10", "CJ", "SC", "HQ", "DK", "C1", "S2", "H2", "HF"]
"""Seat 0's hand in both deals (it holds the coins 3, so it leads first)."""


def _yaya(order: list[str]) -> Match:
    match = GAMES["yaya-fugou"].new_match(PLAYERS, {"hands": 1})
    match.apply(CHANCE, {"type": "shuffle", "deck": order})
    return match


def _two_deals() -> tuple[Match, Match]:
    """The same hand for seat 0; seats 1 and 2 hold each other's cards in the second deal."""
    first = deck_order(PLAYERS, {0: MINE})
    size = len(first) // PLAYERS
    one, two = first[size : 2 * size], first[2 * size : 3 * size]
    second = first[:size] + two + one + first[3 * size :]
    return _yaya(first), _yaya(second)


def test_deals_that_differ_only_in_other_hands_give_the_seat_the_same_guesses_and_hint() -> None:
    real, other = _two_deals()
    assert real.view(0) == other.view(0)
    assert real.view(1)["hand"] != other.view(1)["hand"]
    assert real.to_act() == [0]

    guesses = [InfoSet(match, 0).sample(random.Random(5)).log for match in (real, other)]
    assert guesses[0] == guesses[1]

    hints = [suggestion(match, 0, random.Random(3), iterations=6) for match in (real, other)]
    assert hints[0] == hints[1]
    assert len(hints[0]) == 1 and hints[0][0] in real.legal_actions(0)


def test_a_hint_is_legal_and_leaves_the_match_as_it_was() -> None:
    match, _ = _two_deals()
    log = list(match.log)
    hint = suggestion(match, 0, random.Random(1), iterations=3)
    assert match.log == log
    assert hint[0] in match.legal_actions(0)


def test_a_discard_the_engine_takes_one_card_at_a_time_is_hinted_as_a_whole_set() -> None:
    game = GAMES["french-tarot"]
    for seed in range(200):
        match = game.new_match(PLAYERS, {"hands": 1}, seed=seed)
        rng = random.Random(seed)
        while not match.is_over and match.view(None)["phase"] != "discard":
            seat = match.to_act()[0]
            if seat == CHANCE:
                match.deal_random(rng)
                continue
            legal = match.legal_actions(seat)
            bids = [action for action in legal if action.get("contract") == "prise"]
            match.apply(seat, bids[0] if bids and seat == 0 else legal[0])
        if match.view(None)["phase"] == "discard":
            break
    else:
        raise AssertionError("no seeded deal reached a discard")
    taker = match.to_act()[0]
    hint = suggestion(match, taker, random.Random(2), iterations=2)
    cards = [card for action in hint for card in action["cards"]]
    assert len(cards) == len(set(cards)) == match.view(taker)["dog_size"]
    trial = match.clone()
    for action in hint:
        trial.apply(taker, action)
    assert trial.view(None)["phase"] != "discard"
