"""`Match.view_all()`: the all-seeing observer's view that finished matches' replays show.

After every deal it must show every card of the shuffle exactly once (in a hand or in an unseen
pile such as a kitty, dog, stock or set-aside cards), and during play it must agree with each
seat's own view and never show a card twice in a one-deck game.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest

from engine import CHANCE, GAMES, Match

TABLES = [
    ("holy-grail", 3),
    ("holy-grail", 4),
    ("holy-grail", 10),
    ("yaya-fugou", 4),
    ("yaya-fugou", 7),
    ("fairy-500", 3),
    ("fairy-500", 5),
    ("fairy-500", 8),
    ("french-tarot", 3),
    ("french-tarot", 4),
    ("french-tarot", 5),
    ("familia", 3),
    ("familia", 4),
    ("familia", 7),
]


def shuffled_cards(action: dict[str, Any]) -> Counter[str]:
    """Every card a chance action orders (a `deck`, and Familia's face-card piles)."""
    return Counter(
        card
        for value in action.values()
        if isinstance(value, list) and all(isinstance(c, str) for c in value)
        for card in value
    )


def shown_cards(view: dict[str, Any]) -> Counter[str]:
    """The cards in the observer's hands and unseen piles."""
    cards = [card for hand in view["all_hands"] for card in hand]
    cards += [card for pile in view["unseen"].values() for card in pile]
    return Counter(cards)


def deal(match: Match, rng: random.Random) -> dict[str, Any]:
    """Apply chance actions until a seat is to act; the last one applied is returned."""
    last: dict[str, Any] = {}
    while match.to_act() == [CHANCE]:
        match.deal_random(rng)
        last = match.log[-1][1]
    return last


@pytest.mark.parametrize(("game_id", "players"), TABLES)
def test_after_the_deal_view_all_shows_each_card_of_the_deck_once(game_id: str, players: int) -> None:
    for seed in range(3):
        rng = random.Random(seed)
        match = GAMES[game_id].new_match(players, seed=seed)
        shuffle = deal(match, rng)
        view = match.view_all()
        assert shown_cards(view) == shuffled_cards(shuffle)
        assert view["all_hands"] == [match.view(seat)["hand"] for seat in range(players)]
        assert all(view["all_hands"]), "every seat has been dealt cards"


def test_view_all_shows_the_piles_no_seat_holds() -> None:
    rng = random.Random(1)
    expected = {
        ("holy-grail", 4): {"stock"},
        ("yaya-fugou", 7): {"aside"},
        ("fairy-500", 4): {"kitty"},
        ("french-tarot", 4): {"dog"},
        ("familia", 4): {"draw_pile", "black", "red"},
    }
    for (game_id, players), piles in expected.items():
        match = GAMES[game_id].new_match(players, seed=1)
        deal(match, rng)
        assert set(match.view_all()["unseen"]) == piles, game_id
        assert match.view(None)["hand"] == [], "the spectator's own view stays hidden"


@pytest.mark.parametrize(("game_id", "players"), TABLES)
def test_view_all_agrees_with_every_seat_through_a_random_match(game_id: str, players: int) -> None:
    rng = random.Random(7)
    game = GAMES[game_id]
    match = game.new_match(players, options={"hands": 2}, seed=7)
    one_deck = None
    steps = 0
    while not match.is_over and steps < 3000:
        steps += 1
        acting = match.to_act()
        if acting == [CHANCE]:
            match.deal_random(rng)
            shuffle = match.log[-1][1]
            shown, dealt = shown_cards(match.view_all()), shuffled_cards(shuffle)
            if not dealt:
                continue  # Holy Grail's draw for the first player
            one_deck = max(dealt.values()) == 1
            assert not dealt - shown, "no shuffled card is missing after a deal"
            if game_id == "familia" and "black" not in shuffle:
                # Face-card piles used together continue from the earlier deal.
                unseen = match.view_all()["unseen"]
                assert shown - dealt == Counter(unseen.get("black", []) + unseen.get("red", []))
            else:
                assert shown == dealt
            continue
        seat = acting[0]
        match.apply(seat, rng.choice(match.legal_actions(seat)))
        view = match.view_all()
        assert view["all_hands"] == [match.view(s)["hand"] for s in range(players)]
        assert view["seat"] is None and view["observer"] is True
        spectator = match.view(None)
        assert {k: v for k, v in view.items() if k in spectator} == spectator
        if one_deck:
            shown = shown_cards(view)
            assert max(shown.values(), default=1) == 1, "a one-deck game shows no card twice"
        json.dumps(view)  # JSON-ready, as every view
    assert match.is_over


def test_view_all_names_the_secret_partner_of_french_tarot() -> None:
    game = GAMES["french-tarot"]
    for seed in range(40):
        rng = random.Random(seed)
        match = game.new_match(5, seed=seed)
        deal(match, rng)
        while match.view(None)["phase"] == "bid":
            seat = match.to_act()[0]
            legal = match.legal_actions(seat)
            bids = [a for a in legal if a["type"] == "bid"]
            match.apply(seat, bids[0] if bids and not match.view(None)["bids"] else {"type": "pass"})
        if match.view(None)["phase"] != "call":
            continue
        taker = match.view(None)["taker"]
        call = match.legal_actions(taker)[0]
        match.apply(taker, call)
        holders = [s for s, hand in enumerate(match.view_all()["all_hands"]) if call["card"] in hand]
        if not holders or holders == [taker]:
            continue
        partner = holders[0]
        view = match.view_all()
        assert view["partner"] is None, "the spectator part keeps the partner secret"
        assert view["seat_private"][partner]["partner"] == partner
        return
    pytest.fail("no five-player deal with a called partner in 40 seeds")
