"""Compact multi-card choices: a complete "choose k of these cards" group travels as one entry
and expands back to exactly the engine's legal actions, which the engine then accepts."""

from __future__ import annotations

import itertools
import json
import random
from math import comb

import pytest

from app.live.wire import compact, expand
from engine import CHANCE, GAMES
from engine.bots import bot_action


def as_set(actions: list[dict]) -> list[str]:
    return sorted(json.dumps({**a, "cards": sorted(a.get("cards", []))}, sort_keys=True) for a in actions)


def test_every_four_card_pick_of_fourteen_cards_becomes_one_entry() -> None:
    hand = [f"H{n}" for n in range(1, 15)]
    legal = [{"type": "discard", "cards": list(c)} for c in itertools.combinations(hand, 4)]
    assert len(legal) == comb(14, 4)
    (entry,) = compact(legal)
    assert entry == {"type": "discard", "choose": 4, "from": hand}
    assert as_set(expand([entry])) == as_set(legal)


def test_an_incomplete_group_stays_a_list() -> None:
    hand = [f"S{n}" for n in range(1, 9)]
    pairs = [{"type": "give", "cards": [a, b]} for i, a in enumerate(hand) for b in hand[i + 1 :]]
    legal = pairs[:-1] + [{"type": "pass"}]  # one pair is not allowed
    assert compact(legal) == legal


def test_equal_cards_from_several_decks_count_once_per_pick() -> None:
    hand = ["SA", "SA", "H2", "H3", "D4", "D5"]
    picks = {tuple(sorted(p)) for p in itertools.combinations(hand, 2)}
    legal = [{"type": "give", "cards": list(p)} for p in sorted(picks)]
    (entry,) = compact(legal)
    assert entry["choose"] == 2 and sorted(entry["from"]) == sorted(hand)
    assert as_set(expand([entry])) == as_set(legal)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_random_play_compacts_losslessly_and_the_engine_takes_expanded_actions(game_id: str) -> None:
    game = GAMES[game_id]
    rng = random.Random(11)
    for players in (game.min_players, game.max_players):
        match = game.new_match(players, game.default_options(players))
        for _ in range(400):
            if match.is_over:
                break
            acting = match.to_act()
            if CHANCE in acting:
                match.deal_random(rng)
                continue
            seat = acting[0]
            legal = match.legal_actions(seat)
            wire = compact(legal)
            assert as_set(expand(wire)) == as_set(legal)
            if wire is not legal:
                assert len(json.dumps(wire)) < len(json.dumps(legal))
                match.apply(seat, rng.choice(expand(wire)))  # the cards in the order expand gives
            else:
                match.apply(seat, bot_action(match, seat, rng))


def test_groups_that_differ_in_another_field_fold_into_separate_entries() -> None:
    hand = [f"D{n}" for n in range(1, 7)]
    pairs = list(itertools.combinations(hand, 2))
    legal = [{"type": "give", "to": to, "cards": list(pair)} for to in (1, 2) for pair in pairs]
    wire = compact(legal)
    assert [(entry["to"], entry["choose"]) for entry in wire] == [(1, 2), (2, 2)]
    assert as_set(expand(wire)) == as_set(legal)
