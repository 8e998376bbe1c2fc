"""Familia keeps finished hands compactly (engine/games/familia/records.py) and builds their
records on demand: the records must stay exactly what they were when each hand ended, however
many hands follow and however the match is copied."""

from __future__ import annotations

import copy
import json
import pickle
import random
from typing import Any

from engine import CHANCE, get_game
from engine.games.familia.rules import FamiliaMatch

GAME = get_game("familia")


def dumped(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def play_until(match: FamiliaMatch, rng: random.Random, hands: int, extra_actions: int = 0) -> None:
    """Random legal play until `hands` hands are finished, then `extra_actions` more actions."""
    while match.hands_done < hands and not match.is_over:
        step(match, rng)
    for _ in range(extra_actions):
        if match.is_over:
            break
        step(match, rng)


def step(match: FamiliaMatch, rng: random.Random) -> None:
    seat = match.to_act()[0]
    if seat == CHANCE:
        match.deal_random(rng)
    else:
        match.apply(seat, rng.choice(match.legal_actions(seat)))


def test_a_finished_hands_record_never_changes_while_later_hands_are_played() -> None:
    rng = random.Random(7)
    match = GAME.new_match(5, {"hands": 3, "royal": True}, seed=7)
    assert isinstance(match, FamiliaMatch)
    when_finished: list[str] = []
    while not match.is_over:
        before = match.hands_done
        step(match, rng)
        if match.hands_done != before:
            when_finished.append(dumped(match.hands[-1]))
    assert len(when_finished) == 3
    assert [dumped(record) for record in match.hands] == when_finished


def test_each_call_gives_new_records_so_a_reader_changing_one_changes_nothing_kept() -> None:
    rng = random.Random(3)
    match = GAME.new_match(4, {"hands": 2}, seed=3)
    play_until(match, rng, hands=1)
    first = match.hands[0]
    kept = dumped(first)
    assert first is not match.hands[0]
    first["scores"] = [999] * 4
    first["details"] = {}
    assert dumped(match.hands[0]) == kept


def test_records_survive_pickle_copy_clone_and_determinize() -> None:
    rng = random.Random(11)
    match = GAME.new_match(4, {"hands": 3}, seed=11)
    play_until(match, rng, hands=2, extra_actions=7)
    assert match.hands_done == 2
    records = dumped(match.hands)
    copies = {
        "pickle": pickle.loads(pickle.dumps(match)),
        "deepcopy": copy.deepcopy(match),
        "clone": match.clone(),
        "determinize": match.determinize(1, random.Random(5)),
    }
    for how, twin in copies.items():
        assert dumped(twin.hands) == records, how
        play_until(twin, random.Random(len(how)), hands=3)  # a copy plays on alone
        assert twin.hands_done == 3, how
        assert dumped(twin.hands[:2]) == records, how
    assert match.hands_done == 2 and dumped(match.hands) == records
