"""French Tarot by random play: the contract's promises and the game's own invariants."""

from __future__ import annotations

import random

import pytest

from engine import CHANCE, Match, get_game
from engine.games.french_tarot.rules import DECK, FrenchTarotMatch
from engine.games.french_tarot.scoring import card_points
from tests.engine.contract_checks import check_view_hides_other_hands, play_random_match

GAME = get_game("french-tarot")


def revealed_cards(match: Match, viewer: int | None) -> set[str]:
    """Card codes the views may name without revealing a holding: the dog at prise and garde,
    poignées, and the called cards' names (this hand's and earlier hands' results)."""
    assert isinstance(match, FrenchTarotMatch)
    shown = {h["details"]["called_card"] for h in match.hands if h["details"]["called_card"]}
    hand = match.hand
    if hand is None:
        return shown
    if hand.dog_shown:
        shown |= set(hand.dog)
    for poignee in hand.poignees:
        shown |= set(poignee["cards"])
    if hand.called_card:
        shown.add(hand.called_card)
    return shown


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("options", [{}, {"petit_sec": False, "hands": 2}])
def test_random_matches_keep_the_contract(players: int, options: dict) -> None:
    for seed in range(3):
        match = play_random_match(
            GAME, players, seed=seed * 31 + players, options=options, revealed=revealed_cards
        )
        assert len(match.hands) == (options.get("hands") or players)


def cards_in_play(match: FrenchTarotMatch) -> list[str]:
    hand = match.hand
    assert hand is not None
    cards = [c for h in hand.hands for c in h]
    cards += [c for t in hand.tricks for _, c in t.plays]
    cards += hand.trick.cards if hand.trick else []
    cards += hand.discard
    if not hand.dog_shown:
        cards += hand.dog
    return cards


@pytest.mark.parametrize("players", [3, 4, 5])
def test_cards_are_conserved_and_every_hand_accounts_for_91_points_and_sums_to_zero(players: int) -> None:
    """Issue 5 properties: the 91 card points are always accounted for; hand scores sum to zero."""
    rng = random.Random(players)
    match = GAME.new_match(players, {"hands": 12}, seed=players)
    assert isinstance(match, FrenchTarotMatch)
    while not match.is_over:
        seat = match.to_act()[0]
        if seat == CHANCE:
            match.deal_random(rng)
            continue
        assert sorted(cards_in_play(match)) == sorted(DECK)
        legal = match.legal_actions(seat)
        # Bid more often than uniformly so that most deals are played out.
        bids = [a for a in legal if a["type"] == "bid"]
        action = rng.choice(bids) if bids and rng.random() < 0.5 else rng.choice(legal)
        match.apply(seat, action)
        if match.hand is not None and match.hand.trick is not None and not match.hand.trick.plays:
            check_view_hides_other_hands(match, revealed_cards)
    assert len(match.hands) == 12
    for record in match.hands:
        details = record["details"]
        assert details["points"] + details["defence_points"] == 91
        assert sum(record["scores"]) == 0
        assert record["scores"] == details["shares"]
        tricks = details["tricks_won"]["taker"] + details["tricks_won"]["defence"]
        assert tricks == {3: 24, 4: 18, 5: 15}[players]
        assert details["won"] == (details["points"] >= details["target"])
    assert match.scores == [sum(h["scores"][s] for h in match.hands) for s in range(players)]
    assert card_points(DECK) == 91
