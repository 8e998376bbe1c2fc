"""The strong bot: deterministic search given its random stream and iteration count, legal
moves in every game, and the old `bot_action(match, seat, rng)` call still the basic bot."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from engine import CHANCE, GAMES, Match
from engine.bots import bot_action, get_chooser
from engine.search import best_gain, candidates, hand_value, search_action


def _first_real_choice(game_id: str, seed: int) -> tuple[Match, int]:
    """A match at its first decision where the seat to act has several legal actions."""
    match = GAMES[game_id].new_match(4, {"hands": 1}, seed=seed)
    rng = random.Random(seed)
    while True:
        seat = match.to_act()[0]
        if seat == CHANCE:
            match.deal_random(rng)
        elif len(match.legal_actions(seat)) > 1 and match.view(seat)["phase"] == "play":
            return match, seat
        else:
            match.apply(seat, bot_action(match, seat, rng))


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_search_is_deterministic_given_rng_and_iterations(game_id: str) -> None:
    match, seat = _first_real_choice(game_id, seed=4)
    choose = get_chooser(game_id)
    first = search_action(match, seat, random.Random(9), choose, iterations=3)
    again = search_action(match, seat, random.Random(9), choose, iterations=3)
    assert first == again
    assert first in match.legal_actions(seat)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_strong_bot_plays_a_whole_match_legally(game_id: str) -> None:
    game = GAMES[game_id]
    match = game.new_match(4, {"hands": 1}, seed=2)
    rng = random.Random(2)
    while not match.is_over:
        seat = match.to_act()[0]
        if seat == CHANCE:
            match.deal_random(rng)
            continue
        level = "strong" if seat == 0 else "basic"
        match.apply(seat, bot_action(match, seat, rng, level=level, budget=0.01))
    assert len(match.hands) == 1


def test_old_call_is_the_basic_bot() -> None:
    match, seat = _first_real_choice("holy-grail", seed=6)
    old = bot_action(match, seat, random.Random(1))
    basic = bot_action(match, seat, random.Random(1), level="basic")
    assert old == basic


def test_unknown_level_is_refused() -> None:
    match, seat = _first_real_choice("holy-grail", seed=6)
    with pytest.raises(ValueError, match="unknown bot level"):
        bot_action(match, seat, random.Random(1), level="expert")


def test_search_stops_when_asked_and_falls_back_to_the_basic_choice() -> None:
    match, seat = _first_real_choice("french-tarot", seed=3)
    choose = get_chooser("french-tarot")
    basic = choose(match.view(seat), match.legal_actions(seat), random.Random(5))
    assert search_action(match, seat, random.Random(5), choose, should_stop=lambda: True) == basic


def test_default_kept_unless_another_action_wins_clearly() -> None:
    assert best_gain({1: [1.0, -1.0, 1.0, -1.0]}, margin=1.0) is None  # gains and losses cancel out
    assert best_gain({1: [3.0, 2.0, 3.0, 4.0], 2: [1.0, 1.5, 1.0, 1.2]}, margin=1.0) == 1
    assert best_gain({1: [-3.0, -2.0, -3.0, -1.0]}, margin=1.0) is None
    assert best_gain({1: [50.0, 60.0, 40.0]}, margin=1.0) is None  # too few guesses to judge


def test_the_bar_rises_with_the_number_of_rivals() -> None:
    gain = [2.0, 0.0, 2.0, 0.0, 2.0, 0.0, 2.0, 0.0, 2.0]  # mean 1.11, 3.2 standard errors
    alone = {1: gain}
    crowd = {1: gain, **{k: [0.0] * len(gain) for k in range(2, 9)}}
    assert best_gain(alone, margin=2.5) == 1
    assert best_gain(crowd, margin=2.5) is None


def test_candidates_start_with_the_default_even_in_another_spelling() -> None:
    legal = [{"type": "play", "cards": [c]} for c in ("H1", "H2", "H3")]
    spelled = {"type": "play", "cards": ["H2"], "note": "bot"}
    assert candidates(legal, legal[1], random.Random(1)) == [legal[1], legal[0], legal[2]]
    assert candidates(legal, spelled, random.Random(1))[0] == spelled
    many = [{"type": "play", "cards": [f"S{n}"]} for n in range(20)]
    picked = candidates(many, many[7], random.Random(1))
    assert picked[0] == many[7] and len(picked) == 8 and len({str(a) for a in picked}) == 8


@pytest.mark.parametrize("clock", ["wall", "cpu"])
def test_strong_bot_counts_its_budget_on_either_clock(clock: str) -> None:
    match, seat = _first_real_choice("yaya-fugou", seed=5)
    action = bot_action(match, seat, random.Random(3), level="strong", budget=0.01, clock=clock)
    assert action in match.legal_actions(seat)


def test_unknown_clock_is_refused() -> None:
    match, seat = _first_real_choice("holy-grail", seed=6)
    with pytest.raises(ValueError, match="unknown clock"):
        bot_action(match, seat, random.Random(1), level="strong", clock="sundial")


def test_auction_candidates_are_passing_and_the_bids_next_to_the_default() -> None:
    legal = [{"type": "pass"}] + [{"type": "bid", "bid": f"b{n}"} for n in range(20)]
    picked = candidates(legal, legal[10], random.Random(1))
    assert picked[0] == legal[10] and picked[1] == {"type": "pass"}
    assert {a["bid"] for a in picked[2:]} == {"b6", "b7", "b8", "b10", "b11", "b12"}


def test_several_card_candidates_share_the_most_cards_with_the_default() -> None:
    hand = [f"S{n}" for n in range(8)]
    legal = [{"type": "discard", "cards": list(c)} for c in itertools.combinations(hand, 4)]
    default = {"type": "discard", "cards": ["S0", "S1", "S2", "S3"]}
    picked = candidates(legal, default, random.Random(2))
    assert picked[0] == default and len(picked) == 8
    assert all(len(set(a["cards"]) & set(default["cards"])) == 3 for a in picked[1:])


class _Finished(Match):
    """Just what `hand_value` reads of a match: finished hands and teams (a real `Match`: a
    compiled engine checks the type)."""

    def __init__(self, hands: list[dict[str, Any]], teams: list[int] | None = None) -> None:
        self.hands = hands
        self._teams = teams

    @property
    def teams(self) -> list[int] | None:
        return self._teams


def test_hand_value_is_the_score_over_the_tables_mean_and_ranks_as_the_lead() -> None:
    alone = _Finished([{"scores": [30, 0, -15, -15]}])  # zero-sum: the seat's own score
    assert hand_value(alone, 0, 0) == 30 and hand_value(alone, 1, 0) == 0
    misere = _Finished([{"scores": [0, -150, 0, 0]}])  # a defender's own score says nothing
    assert hand_value(misere, 0, 0) == 37.5
    teams = _Finished([{"scores": [12, 5, 12, 5]}], teams=[0, 1, 0, 1])  # every seat shows its team's
    assert hand_value(teams, 2, 0) == 3.5 and hand_value(teams, 1, 0) == -3.5
    assert hand_value(teams, 0, 1) == 0  # no hand finished yet


def _first_decision_in(game_id: str, phase: str, seed: int) -> tuple[Match, int]:
    match = GAMES[game_id].new_match(4, {"hands": 1}, seed=seed)
    rng = random.Random(seed)
    while True:
        seat = match.to_act()[0]
        if seat == CHANCE:
            match.deal_random(rng)
        elif match.view(seat)["phase"] == phase and len(match.legal_actions(seat)) > 1:
            return match, seat
        else:
            match.apply(seat, bot_action(match, seat, rng))


@pytest.mark.parametrize(
    ("game_id", "phase"), [("fairy-500", "bid"), ("french-tarot", "bid"), ("fairy-500", "discard")]
)
def test_auction_and_discard_searches_are_legal_and_deterministic(game_id: str, phase: str) -> None:
    match, seat = _first_decision_in(game_id, phase, seed=3)
    choose = get_chooser(game_id)
    first = search_action(match, seat, random.Random(4), choose, iterations=6)
    assert first == search_action(match, seat, random.Random(4), choose, iterations=6)
    match.clone().apply(seat, first)  # raises IllegalAction if the rules refuse it


@pytest.mark.parametrize("game_id", ["fairy-500", "french-tarot"])
def test_auction_search_stops_as_soon_as_its_budget_is_spent(game_id: str) -> None:
    """The budget is a stop condition the search consults: once it says stop, the search
    answers at once (counted in consultations, not seconds)."""
    match, seat = _first_decision_in(game_id, "bid", seed=7)
    calls = {"n": 0, "after": 0}

    def stop() -> bool:
        calls["n"] += 1
        if calls["n"] > 200:
            calls["after"] += 1
            return True
        return False

    action = search_action(match, seat, random.Random(1), get_chooser(game_id), should_stop=stop)
    assert action in match.legal_actions(seat)
    assert calls["n"] > 200 and calls["after"] <= 3
