"""Property checks every game must pass, driven by random play through the contract only.

A game's property test calls `play_random_match` for each player count; the checks here are
the contract's promises (someone to act with a legal action until the end, illegal or malformed
input is refused with IllegalAction and leaves the match untouched, replay is exact, views never
leak hidden cards nor carry the finished hands' records).
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from engine import CHANCE, Game, IllegalAction, Match

RevealedCards = Callable[[Match, int | None], set[str]]


def _no_revealed(match: Match, seat: int | None) -> set[str]:
    return set()


def check_view_hides_other_hands(match: Match, revealed: RevealedCards = _no_revealed) -> None:
    """No seat's view (nor a spectator's) names a card that only another seat holds, unless the
    rules have revealed it (`revealed` returns the codes the rules show to that viewer)."""
    hands = [match.view(s)["hand"] for s in range(match.players)]
    for viewer in [None, *range(match.players)]:
        view = match.view(viewer)
        assert view["hand"] == ([] if viewer is None else hands[viewer])
        assert "hands" not in view, "finished hands are match.hands, not part of every view"
        text = json.dumps({k: v for k, v in view.items() if k != "hand"})
        own = set(hands[viewer]) if viewer is not None else set()
        allowed = own | revealed(match, viewer)
        for other in range(match.players):
            if other == viewer:
                continue
            for card in set(hands[other]) - allowed:
                # Cards are quoted strings in JSON; a hidden card must not appear anywhere.
                assert f'"{card}"' not in text, f"seat {viewer} sees {card} held by seat {other}"


def check_events_are_public(match: Match, events: list[dict], revealed: RevealedCards = _no_revealed) -> None:
    """Events go to every client, spectators included: none may name a card that is still hidden
    in a hand (after the action) unless the rules have shown it to everyone."""
    text = json.dumps(events)
    public = revealed(match, None)
    for seat in range(match.players):
        for card in set(match.view(seat)["hand"]) - public:
            assert f'"{card}"' not in text, f"an event names {card}, hidden in seat {seat}'s hand: {events}"


def play_random_match(
    game: Game,
    players: int,
    seed: int,
    options: dict[str, Any] | None = None,
    revealed: RevealedCards = _no_revealed,
    check_views_every: int = 7,
    max_actions: int = 200_000,
) -> Match:
    """Play one whole match with random legal actions, checking the contract on the way."""
    rng = random.Random(seed)
    match = game.new_match(players, options, seed=seed)
    steps = 0
    while not match.is_over:
        acting = match.to_act()
        assert acting, "a match that is not over awaits someone"
        seat = rng.choice(acting)
        if seat == CHANCE:
            if steps % check_views_every == 0:
                sample = match.random_chance_action(random.Random(steps))
                check_malformed_input_is_refused(match, CHANCE, sample)
            check_events_are_public(match, match.deal_random(rng), revealed)
        else:
            legal = match.legal_actions(seat)
            assert legal, f"seat {seat} is to act but has no legal action"
            json.dumps(legal)
            if steps % check_views_every == 0:
                _check_illegal_input_changes_nothing(match, seat)
                check_malformed_input_is_refused(match, seat, rng.choice(legal))
                check_view_hides_other_hands(match, revealed)
            events = match.apply(seat, rng.choice(legal))
            check_events_are_public(match, events, revealed)
        steps += 1
        assert steps < max_actions, "the match does not end"
    assert match.to_act() == []
    assert len(match.scores) == players
    json.dumps([match.view(s) for s in [None, *range(players)]])
    json.dumps(match.hands)
    assert match.hands_done == len(match.hands)
    replayed = game.replay(players, match.options, copy.deepcopy(match.log))
    assert replayed.scores == match.scores
    assert replayed.hands == match.hands
    assert [replayed.view(s) for s in range(players)] == [match.view(s) for s in range(players)]
    return match


def _check_illegal_input_changes_nothing(match: Match, seat: int) -> None:
    before = [match.view(s) for s in range(match.players)], len(match.log)
    for bad in ({}, {"type": "no-such-verb"}, {"type": "play", "cards": ["ZZZ"]}, {"type": "play"}):
        try:
            match.apply(seat, bad)
        except IllegalAction:
            pass
        else:  # pragma: no cover - a failure path
            raise AssertionError(f"{bad} was accepted")
    others = [s for s in range(match.players) if s not in match.to_act()]
    if others and match.legal_actions(seat):
        try:
            match.apply(others[0], match.legal_actions(seat)[0])
        except IllegalAction:
            pass
        else:  # pragma: no cover
            raise AssertionError("a seat acted out of turn")
    after = [match.view(s) for s in range(match.players)], len(match.log)
    assert before == after, "an illegal action changed the match"


NOT_SEATS: tuple[Any, ...] = ("0", 0.0, None, True, False, [0], {"seat": 0}, b"0")
"""Seats that are no seat number (JSON could send most of them)."""
NOT_ACTIONS: tuple[Any, ...] = (
    "play", None, 5, [], [{"type": "play"}], {}, {"type": 5}, {"type": None}, {1: 2}
)
"""Actions that are no object with a string `type`."""
ODD_VALUES: tuple[Any, ...] = ("S5", 5, 2.5, None, True, [], [5], ["S5", 5], [["S5"]], {"S5": 5}, {5: "S5"})
"""Values of other forms than a field's: put in place of each field of an action."""


def malformed_variants(action: dict[str, Any]) -> list[Any]:
    """The action with each field missing or replaced by a value of another form."""
    variants: list[Any] = []
    for key in action:
        if key == "type":
            continue
        variants.append({k: v for k, v in action.items() if k != key})
        variants.extend({**action, key: odd} for odd in ODD_VALUES if odd != action[key])
    return variants


EXTRA_FIELDS: dict[str, Any] = {"note": "x" * 5000, "junk": 2**70}
"""Fields no action has. A legal action with one of them is refused: the game would not read it,
but the log would keep it, and a log is stored and shown in every replay."""


def check_extra_fields_are_refused(match: Match, seat: int, action: dict[str, Any]) -> None:
    """`action`, which the seat may take, with a field no action has is refused and leaves no
    trace: both when the seat's legal actions were listed for this state and when they were not
    (the way a replay applies its log)."""
    for listed_first in (False, True):
        trial = match.clone()
        if listed_first and seat != CHANCE:
            trial.legal_actions(seat)
        for field, value in EXTRA_FIELDS.items():
            with pytest.raises(IllegalAction, match=f"no field '{field}'"):
                trial.apply(seat, {**action, field: value})
        assert len(trial.log) == len(match.log)


def check_malformed_input_is_refused(match: Match, seat: int, action: dict[str, Any]) -> None:
    """Whatever `apply` is given instead of a seat and an action (`action` is one the seat may
    take), it refuses with IllegalAction and changes nothing, compiled or from the sources; a
    variant that happens to be legal (an optional field left out) is applied to a copy only.
    The action with a field it does not have is refused too (`check_extra_fields_are_refused`)."""
    check_extra_fields_are_refused(match, seat, action)
    trial = match.clone()
    shown = json.dumps([trial.view(seat if seat != CHANCE else None), trial.to_act(), trial.scores])
    tries: list[tuple[Any, Any]] = [(bad, action) for bad in NOT_SEATS]
    tries += [(seat, bad) for bad in (*NOT_ACTIONS, *malformed_variants(action))]
    for bad_seat, bad_action in tries:
        try:
            trial.apply(bad_seat, bad_action)
        except IllegalAction:
            assert len(trial.log) == len(match.log), f"{bad_seat}, {bad_action} was refused after a change"
            continue
        assert type(bad_seat) is int, f"the seat {bad_seat!r} was taken"
        trial = match.clone()  # a legal variant: try the others on an untouched copy
    assert len(trial.log) == len(match.log)
    assert json.dumps([trial.view(seat if seat != CHANCE else None), trial.to_act(), trial.scores]) == shown
