"""The Fairy Five Hundred bot: sensible choices on constructed deals, and fast decisions."""

from __future__ import annotations

import random

from engine import CHANCE, get_game
from engine.bots import bot_action
from engine.games.fairy_500.bot import choose, estimate_trump_tricks, misere_danger
from engine.games.fairy_500.deck import stack_deck
from engine.games.fairy_500.rules import FairyFiveHundredMatch

GAME = get_game("fairy-500")
PASS = {"type": "pass"}


def deal(players: int, hands: dict[int, list[str]], kitty: list[str] | None = None) -> FairyFiveHundredMatch:
    match = GAME.new_match(players)
    match.apply(CHANCE, {"type": "shuffle", "deck": stack_deck(players, 0, hands, kitty)})
    return match


def bot_choice(match: FairyFiveHundredMatch, seat: int) -> dict:
    return choose(match.view(seat), match.legal_actions(seat), random.Random(0))


def test_strong_trump_hand_bids_in_its_suit_and_weak_hand_does_not() -> None:
    strong = ["HF", "DF", "CF", "HJ", "DJ", "HK", "HQ", "HC", "H10", "H9"]
    match = deal(4, {1: strong, 2: ["S5", "S6", "C5", "C6", "D5", "D6", "H5", "H6", "S7", "C7"]})
    action = bot_choice(match, 1)
    assert action["type"] == "bid" and action["bid"].endswith("H")
    assert estimate_trump_tricks(strong, 4, "H") >= 8
    match.apply(1, action)
    weak = bot_choice(match, 2)
    assert weak == PASS or "misere" in weak["bid"]


def test_low_hand_is_a_misere_candidate() -> None:
    assert misere_danger(["S5", "S6", "C5", "C6", "D5", "D6", "H5", "H6", "S7", "C7"]) < 0.5
    assert misere_danger(["HF", "SK", "DK"]) > 2


def test_bot_names_the_strongest_trump_it_lacks() -> None:
    match = deal(5, {1: ["HF", "DF", "HJ", "DJ", "HK", "HQ", "HC", "H10", "H9", "H8"]})
    match.apply(1, {"type": "bid", "bid": "8H"})
    for seat in (2, 3, 4, 0):
        match.apply(seat, PASS)
    assert bot_choice(match, 1) == {"type": "call", "card": "CF"}


def test_bot_keeps_trumps_and_throws_low_side_cards_in_the_exchange() -> None:
    trumps = ["SF", "SJ", "CJ", "SK", "SQ", "SC", "S10", "S9"]
    match = deal(3, {1: [*trumps, "H7", "D7"]}, kitty=["H8", "D8", "C8", "HK"])
    match.apply(1, {"type": "bid", "bid": "7S"})
    match.apply(2, PASS)
    match.apply(0, PASS)
    action = bot_choice(match, 1)
    assert action["type"] == "discard"
    assert not set(action["cards"]) & set(trumps)
    assert "HK" not in action["cards"]


def test_misere_declarer_ducks_under_the_card_on_the_table() -> None:
    no_swords = ["H10", "D10", "C10", "HJ", "DJ", "CJ", "HC", "DC", "CC", "HQ"]
    declarer = ["S8", "S10", "H7", "D7", "H8", "D8", "C8", "H9", "D9", "C9"]
    match = deal(3, {1: declarer, 2: ["S9"], 0: no_swords})
    match.apply(1, {"type": "bid", "bid": "hand_misere"})
    match.apply(2, PASS)
    match.apply(0, PASS)
    match.apply(2, {"type": "play", "cards": ["S9"]})  # seat 2 leads
    match.apply(0, {"type": "play", "cards": ["HQ"]})  # seat 0 cannot follow
    assert bot_choice(match, 1) == {"type": "play", "cards": ["S8"]}


def test_ramsch_player_forced_to_win_wins_with_a_fairy() -> None:
    """Seed 000, Ramsch: a trick won with an F does not count, so spend the F when a win is forced."""
    hands = {
        0: ["SF", "S10", "H7", "H8", "H9", "H10", "HJ", "HC", "HQ", "HK"],
        1: ["S8", "SJ", "SC", "SQ", "SK", "D7", "D8", "D9", "D10", "DJ"],
        2: ["S9", "C8", "C9", "C10", "CJ", "CC", "CQ", "CK", "DC", "DQ"],
    }
    match = deal(3, hands, kitty=["HF", "DF", "CF", "DK"])
    for seat in (1, 2, 0):
        match.apply(seat, PASS)
    match.apply(1, {"type": "play", "cards": ["S8"]})  # Ramsch: the dealer's left leads
    match.apply(2, {"type": "play", "cards": ["S9"]})
    assert {a["cards"][0] for a in match.legal_actions(0)} == {"SF", "S10"}  # both win
    assert bot_choice(match, 0) == {"type": "play", "cards": ["SF"]}


def test_bots_play_whole_matches_at_every_player_count() -> None:
    for players in range(3, 9):
        rng = random.Random(players)
        match = GAME.new_match(players, {"hands": 2}, seed=players)
        while not match.is_over:
            seat = match.to_act()[0]
            if seat == CHANCE:
                match.deal_random(rng)
                continue
            action = bot_action(match, seat, rng)
            match.apply(seat, action)
