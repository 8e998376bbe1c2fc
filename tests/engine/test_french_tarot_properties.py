"""French Tarot's own invariants for the contract suite (tests/engine/test_contract.py): the
deck conserved at every turn, the 91 card points accounted for in every hand, hand scores that
sum to zero and follow the contract's result."""

from __future__ import annotations

import random
from typing import Any

from engine import Match
from engine.games.french_tarot.rules import DECK, FrenchTarotMatch
from engine.games.french_tarot.scoring import card_points
from tests.engine.contract_checks import Action, GameChecks, Variant, check_view_hides_other_hands

TRICKS_A_HAND = {3: 24, 4: 18, 5: 15}
SORTED_DECK = sorted(DECK)


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


def eager_bidder(match: Match, seat: int, legal: list[Action], rng: random.Random) -> Action:
    """Bid more often than uniformly, so that most deals are played out."""
    bids = [a for a in legal if a["type"] == "bid"]
    return rng.choice(bids) if bids and rng.random() < 0.5 else rng.choice(legal)


def check_the_deck_is_conserved(match: Match, played: list[str]) -> None:
    """Every card of the deck is in a hand, a trick, the discard or the dog, at every turn; when
    a hand's first trick starts (the dog shown or put aside, the called card named), no view
    shows a hidden card (random play's contract checks look at the views of later turns)."""
    assert isinstance(match, FrenchTarotMatch)
    assert sorted(cards_in_play(match)) == SORTED_DECK
    hand = match.hand
    if hand is not None and not hand.tricks and hand.trick is not None and not hand.trick.plays:
        check_view_hides_other_hands(match, revealed_cards)


def check_every_hand_accounts_for_91_points_and_sums_to_zero(match: Match) -> None:
    """The 91 card points are always accounted for; hand scores sum to zero, are the shares,
    and follow whether the taker reached the target; a match is as many hands as seats unless
    its options say otherwise."""
    assert isinstance(match, FrenchTarotMatch)
    players = match.players
    assert len(match.hands) == (match.options.hands or players)
    for record in match.hands:
        details = record["details"]
        assert details["points"] + details["defence_points"] == 91
        assert sum(record["scores"]) == 0
        assert record["scores"] == details["shares"]
        tricks = details["tricks_won"]["taker"] + details["tricks_won"]["defence"]
        assert tricks == TRICKS_A_HAND[players]
        assert details["won"] == (details["points"] >= details["target"])
    assert match.scores == [sum(h["scores"][s] for h in match.hands) for s in range(players)]


def test_the_deck_holds_91_card_points() -> None:
    assert card_points(DECK) == 91


OPTION_SETS: list[dict[str, Any]] = [{}, {"petit_sec": False, "hands": 2}]

CHECKS = GameChecks(
    random_play=[
        *(
            Variant(players, options, seeds=[seed * 31 + players for seed in range(3)])
            for players in (3, 4, 5)
            for options in OPTION_SETS
        ),
        *(Variant(p, {"hands": 12}, (p,), eager_bidder, contract_every=None) for p in (3, 4, 5)),
    ],
    revealed=revealed_cards,
    check_turn=check_the_deck_is_conserved,
    check_result=check_every_hand_accounts_for_91_points_and_sums_to_zero,
)
