"""Fairy Five Hundred's own invariants for the contract suite (tests/engine/test_contract.py):
cards conserved, ten tricks a hand, scores that add up and follow the kind of hand that was
played, at every player count and option; cautious random play so that contracts come up."""

from __future__ import annotations

import random
from collections import Counter
from functools import cache
from typing import Any

from engine import Match
from engine.games.fairy_500.deck import card_set
from engine.games.fairy_500.rules import FairyFiveHundredMatch
from tests.engine.contract_checks import Action, GameChecks, Variant


def option_sets(players: int) -> list[dict[str, Any]]:
    """Every scoring and partnership choice there is at this player count."""
    sets: list[dict[str, Any]] = [
        {},
        {"classical": True},
        {"classical": True, "classical_all_pass": "ten_per_trick"},
    ]
    if players == 4:
        sets += [{"partnership": True}, {"partnership": True, "classical": True}]
    return sets


OPTION_SETS = [(players, options) for players in range(3, 9) for options in option_sets(players)]


def _card_codes(value: Any, found: set[str]) -> None:
    if isinstance(value, str):
        found.add(value)
    elif isinstance(value, dict):
        for item in value.values():
            _card_codes(item, found)
    elif isinstance(value, list):
        for item in value:
            _card_codes(item, found)


def revealed_cards(match: Match, seat: int | None) -> set[str]:
    """Cards the rules show to everyone: named cards, an open misère's hand, and what finished
    hands' results name (a named card's final place, the F's behind a bonus)."""
    assert isinstance(match, FairyFiveHundredMatch)
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


def cautious_random(match: Match, seat: int, legal: list[Action], rng: random.Random) -> Action:
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


@cache
def deck(players: int) -> Counter[str]:
    """The cards a hand of `players` seats is dealt from, counted."""
    return Counter(card_set(players))


def check_cards_are_conserved(match: Match, played: list[str]) -> None:
    """Every card of the deck is in a hand, the kitty, the discards or played this hand, and
    each completed trick went to someone."""
    assert isinstance(match, FairyFiveHundredMatch)
    hand = match.hand
    if hand is None:
        return
    in_play = [*sum(hand.hands, []), *hand.kitty, *hand.discards, *played]
    assert Counter(in_play) == deck(match.players)
    assert sum(hand.tricks_won) == len(played) // match.players


def check_hand(record: dict[str, Any], players: int) -> None:
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


def check_every_hand_scores_consistently(match: Match) -> None:
    """The match's scores are the sum of its hands', and each hand's follow from its facts."""
    players = match.players
    assert match.scores == [sum(h["scores"][s] for h in match.hands) for s in range(players)]
    for record in match.hands:
        check_hand(record, players)


def check_cautious_play_reaches_contracts(variant: Variant, matches: list[Match]) -> None:
    """Cautious play's matches of a variant hold a contract: what its invariants were checked on."""
    if variant.choose is not cautious_random:
        return
    assert any(record["details"]["kind"] == "contract" for match in matches for record in match.hands)


CHECKS = GameChecks(
    random_play=[
        variant
        for players, options in OPTION_SETS
        for variant in (
            Variant(players, options, seeds=range(3)),
            Variant(players, {**options, "hands": 6}, range(4), cautious_random, contract_every=None),
        )
    ],
    bot_play=[
        Variant(players, {**options, "hands": 3}, seeds=(players,)) for players, options in OPTION_SETS
    ],
    revealed=revealed_cards,
    check_turn=check_cards_are_conserved,
    check_result=check_every_hand_scores_consistently,
    check_variant=check_cautious_play_reaches_contracts,
)
