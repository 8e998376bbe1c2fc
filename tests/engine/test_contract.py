"""The contract over every registered game, player count and option variant
(tests/engine/contract_checks.py): a new game in engine/games/ is checked here without a line of
its own, at each player count for one hand.

A game's property test module (`test_<package>_properties.py`) may define `CHECKS`, a
`GameChecks` naming the variants to play (random and by its bots) and its own invariants checked
on the way: the cards its rules show beyond a seat's own hand, cards conserved at every turn,
scores that follow from each hand's facts. Each variant is one test here."""

from __future__ import annotations

import importlib
import random
from dataclasses import replace

import pytest

from engine import CHANCE, GAMES, IllegalAction, Match
from tests.engine.contract_checks import (
    GameChecks,
    Variant,
    bot_choice,
    check_malformed_input_is_refused,
    play_match,
)


def game_checks(game_id: str) -> GameChecks:
    """The game's `CHECKS`, with a one-hand random match added at each player count that its
    random variants leave out (all of them for a game that defines none)."""
    try:
        module = importlib.import_module(f"tests.engine.test_{game_id.replace('-', '_')}_properties")
    except ModuleNotFoundError:
        checks = GameChecks()
    else:
        checks = getattr(module, "CHECKS", GameChecks())
    game = GAMES[game_id]
    played = {variant.players for variant in checks.random_play}
    missing = [
        Variant(players, {"hands": 1}, seeds=(players,))
        for players in range(game.min_players, game.max_players + 1)
        if players not in played
    ]
    return replace(checks, random_play=[*checks.random_play, *missing])


CHECKS = {game_id: game_checks(game_id) for game_id in sorted(GAMES)}
CASES = [
    (game_id, players)
    for game_id, game in sorted(GAMES.items())
    for players in range(game.min_players, game.max_players + 1)
]
RANDOM_PLAY = [
    pytest.param(game_id, variant, id=f"{game_id}-{variant.id}")
    for game_id, checks in CHECKS.items()
    for variant in checks.random_play
]
BOT_PLAY = [
    pytest.param(game_id, variant, id=f"{game_id}-{variant.id}")
    for game_id, checks in CHECKS.items()
    for variant in checks.bot_play
]


def _play_variant(game_id: str, variant: Variant) -> list[Match]:
    checks = CHECKS[game_id]
    matches = [play_match(GAMES[game_id], variant, seed, checks) for seed in variant.seeds]
    for match in matches:
        assert match.is_over and match.hands
    checks.check_variant(variant, matches)
    return matches


@pytest.mark.parametrize(("game_id", "variant"), RANDOM_PLAY)
def test_random_matches_keep_the_contract_and_the_games_own_rules(game_id: str, variant: Variant) -> None:
    """Random play to the end: the contract's promises at every step (the costly ones every
    `contract_every` steps), the game's invariants at every turn and its scores at the end."""
    _play_variant(game_id, variant)


@pytest.mark.parametrize(("game_id", "variant"), BOT_PLAY)
def test_bots_play_whole_matches_legally_and_keep_the_games_own_rules(game_id: str, variant: Variant) -> None:
    """The game's bots play matches to the end with listed legal actions only, the game's
    invariants holding at every turn (the contract's costly checks are random play's job)."""
    _play_variant(game_id, replace(variant, choose=bot_choice, contract_every=None))


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
