"""The contract over every registered game and player count (tests/engine/contract_checks.py):
a new game in engine/games/ is checked here without a line of its own.

A game's property test module (`test_<package>_properties.py`) may define
`revealed_cards(match, viewer)`, the cards its rules show beyond a seat's own hand; the view
check here uses it, and assumes no card is shown where a game defines none."""

from __future__ import annotations

import importlib
import random
from typing import Any

import pytest

from engine import CHANCE, GAMES, IllegalAction, Match
from tests.engine.contract_checks import RevealedCards, check_malformed_input_is_refused, play_random_match

CASES = [
    (game_id, players)
    for game_id, game in sorted(GAMES.items())
    for players in range(game.min_players, game.max_players + 1)
]


def revealed_cards(game_id: str) -> RevealedCards | None:
    try:
        module = importlib.import_module(f"tests.engine.test_{game_id.replace('-', '_')}_properties")
    except ModuleNotFoundError:
        return None
    return getattr(module, "revealed_cards", None)


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_a_random_match_keeps_the_contract(game_id: str, players: int) -> None:
    revealed = revealed_cards(game_id)
    extra: dict[str, Any] = {"revealed": revealed} if revealed is not None else {}
    match = play_random_match(GAMES[game_id], players, seed=players, options={"hands": 1}, **extra)
    assert match.is_over and match.hands_done == 1


def _first_states(match: Match, rng: random.Random, actions: int) -> list[Match]:
    """Copies of `match` at each of its first `actions` states (chance's included)."""
    states = []
    for _ in range(actions):
        if match.is_over:
            break
        states.append(match.clone())
        seat = match.to_act()[0]
        if seat == CHANCE:
            match.deal_random(rng)
        else:
            match.apply(seat, rng.choice(match.legal_actions(seat)))
    return states


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_every_kind_of_action_refuses_malformed_input_with_illegal_action(game_id: str, players: int) -> None:
    """In each of the first states of a match, every legal action (and the chance action) with
    each field missing or of another form, and every non-seat and non-action, is refused with
    IllegalAction and changes nothing; an out-of-range seat is refused too."""
    rng = random.Random(players)
    for state in _first_states(GAMES[game_id].new_match(players, seed=players), rng, actions=40):
        seat = state.to_act()[0]
        if seat == CHANCE:
            actions = [state.random_chance_action(random.Random(0))]
        else:
            by_type = {action["type"]: action for action in state.legal_actions(seat)}
            actions = list(by_type.values())
        for action in actions:
            check_malformed_input_is_refused(state, seat, action)
        for bad_seat in (players, -3, 2**70):
            with pytest.raises(IllegalAction):
                state.apply(bad_seat, actions[0])


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_log_whose_action_carries_a_field_no_action_has_does_not_replay(game_id: str) -> None:
    """A replay applies its log as it was stored: an entry with a field of someone's own is
    refused there as anywhere (and the same log without it replays)."""
    game = GAMES[game_id]
    match = game.new_match(game.min_players, seed=3)
    _first_states(match, random.Random(3), actions=30)  # plays those actions on `match`
    log = [(seat, dict(action)) for seat, action in match.log]
    last_move = max(n for n, (seat, _) in enumerate(log) if seat != CHANCE)
    game.replay(game.min_players, match.options, log)
    log[last_move][1]["note"] = "x" * 5000
    with pytest.raises(IllegalAction, match="no field 'note'"):
        game.replay(game.min_players, match.options, log)
