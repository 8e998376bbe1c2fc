"""Fairy Five Hundred by random play: the engine contract at every player count and option, and
the game's own invariants (cards conserved, ten tricks a hand, scores that add up and follow the
kind of hand that was played)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from engine import CHANCE, get_game
from engine.bots import bot_action
from engine.games.fairy_500.deck import card_set
from engine.games.fairy_500.rules import FairyFiveHundredMatch
from tests.engine.contract_checks import play_random_match

GAME = get_game("fairy-500")

OPTION_SETS: list[tuple[int, dict[str, Any]]] = [
    (players, options)
    for players in range(3, 9)
    for options in (
        {},
        {"classical": True},
        {"classical": True, "classical_all_pass": "ten_per_trick"},
        *([{"partnership": True}, {"partnership": True, "classical": True}] if players == 4 else []),
    )
]


def _card_codes(value: Any, found: set[str]) -> None:
    if isinstance(value, str):
        found.add(value)
    elif isinstance(value, dict):
        for item in value.values():
            _card_codes(item, found)
    elif isinstance(value, list):
        for item in value:
            _card_codes(item, found)


def revealed_cards(match: FairyFiveHundredMatch, seat: int | None) -> set[str]:
    """Cards the rules show to everyone: named cards, an open misère's hand, and what finished
    hands' results name (a named card's final place, the F's behind a bonus)."""
    found: set[str] = set()
    for finished in match.hands:
        _card_codes(finished["details"], found)
    hand = match.hand
    if hand is not None:
        found.update(hand.named)
        open_hand = match.view(None)["open_hand"]
        if open_hand:
            found.update(open_hand["cards"])
    return found


@pytest.mark.parametrize(("players", "options"), OPTION_SETS)
def test_random_matches_keep_the_contract(players: int, options: dict[str, Any]) -> None:
    for seed in range(3):
        match = play_random_match(GAME, players, seed, options, revealed=revealed_cards)
        assert match.hands and match.is_over


def cautious_random(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """Random play that passes often and bids low, so that contracts, misères, Ramsch and
    lieutenants all come up (uniform choice nearly always ends in a crazy misère)."""
    if legal[0]["type"] == "pass":
        roll = rng.random()
        if roll < 0.55 or len(legal) == 1:
            return legal[0]
        if roll < 0.9:
            return rng.choice(legal[1 : min(len(legal), 8)])
        return rng.choice(legal[1:])
    return rng.choice(legal)


def check_hand(match: FairyFiveHundredMatch, record: dict[str, Any], players: int) -> None:
    """A finished hand's scores follow from its facts."""
    scores, details = record["scores"], record["details"]
    kind = details["kind"]
    if kind == "contract":
        tricks = details["tricks"]
        assert sum(tricks) == 10
        total = details["total"]
        declarer = details["declarer"]
        assert scores[declarer] == total * (2 + details["named_kept_by_declarer"]) // 2
        for seat in range(players):
            if seat not in details["side"]:
                assert scores[seat] == 10 * tricks[seat]
        assert details["made"] == (details["side_tricks"] >= details["bid_tricks"])
        assert (total > 0) == details["made"]
    elif kind == "misere":
        declarer = details["declarer"]
        taken = details["declarer_tricks"]
        assert all(scores[s] == 10 * taken for s in range(players) if s != declarer)
        assert (scores[declarer] > 0) == details["made"]
        assert details["made"] == (taken == 0 and details["declaration_met"])
    elif kind == "ramsch":
        counted = details["counted_tricks"]
        assert sum(details["tricks"]) == 10 and sum(counted) >= 6
        for seat in range(players):
            assert (scores[seat] > 0) == (counted[seat] == 0)
    else:
        assert kind == "ten_per_trick"
        assert sum(scores) == 100


@pytest.mark.parametrize(("players", "options"), OPTION_SETS)
def test_cards_are_conserved_and_every_hand_scores_consistently(
    players: int, options: dict[str, Any]
) -> None:
    full_set = Counter(card_set(players))
    kinds: Counter[str] = Counter()
    for seed in range(4):
        rng = random.Random(1000 + seed)
        match = GAME.new_match(players, {**options, "hands": 6}, seed=seed)
        played: list[str] = []
        while not match.is_over:
            seat = match.to_act()[0]
            if seat == CHANCE:
                match.deal_random(rng)
                played = []
                continue
            events = match.apply(seat, cautious_random(match.legal_actions(seat), rng))
            played += [e["card"] for e in events if e["type"] == "play"]
            hand = match.hand
            if hand is None:
                continue
            in_play = [*sum(hand.hands, []), *hand.kitty, *hand.discards, *played]
            assert Counter(in_play) == full_set
            assert sum(hand.tricks_won) == len(played) // players
        assert match.scores == [sum(h["scores"][s] for h in match.hands) for s in range(players)]
        for record in match.hands:
            check_hand(match, record, players)
            kinds[record["details"]["kind"]] += 1
    assert kinds["contract"] > 0


@pytest.mark.parametrize(("players", "options"), OPTION_SETS)
def test_bots_play_whole_matches(players: int, options: dict[str, Any]) -> None:
    rng = random.Random(players)
    match = GAME.new_match(players, {**options, "hands": 3}, seed=players)
    while not match.is_over:
        seat = match.to_act()[0]
        if seat == CHANCE:
            match.deal_random(rng)
        else:
            match.apply(seat, bot_action(match, seat, rng))
    for record in match.hands:
        check_hand(match, record, players)
