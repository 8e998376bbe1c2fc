"""Property checks every game must pass, driven by random play through the contract only.

A game's property test calls `play_random_match` for each player count; the checks here are
the contract's promises (someone to act with a legal action until the end, illegal input leaves
the match untouched, replay is exact, views never leak hidden cards).
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

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
        # Finished hands ("hands") are history: their cards are no longer anyone's hidden cards.
        text = json.dumps({k: v for k, v in view.items() if k not in ("hand", "hands")})
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
            check_events_are_public(match, match.deal_random(rng), revealed)
        else:
            legal = match.legal_actions(seat)
            assert legal, f"seat {seat} is to act but has no legal action"
            json.dumps(legal)
            if steps % check_views_every == 0:
                _check_illegal_input_changes_nothing(match, seat)
                check_view_hides_other_hands(match, revealed)
            events = match.apply(seat, rng.choice(legal))
            check_events_are_public(match, events, revealed)
        steps += 1
        assert steps < max_actions, "the match does not end"
    assert match.to_act() == []
    assert len(match.scores) == players
    json.dumps([match.view(s) for s in [None, *range(players)]])
    json.dumps(match.hands)
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
