"""Yaya Fugou by random play at every player count and option set: the contract's promises and
the game's invariants (cards conserved, zero-sum hands, places and titles consistent), plus a
brute-force check that the legal list holds every distinct play exactly once."""

from __future__ import annotations

import copy
import random
from itertools import combinations, product

import pytest

from engine import CHANCE, IllegalAction, get_game
from engine.bots import bot_action
from engine.games.yaya_fugou.cards import DECK, F_CARDS, IS_F, NATURALS, STRENGTH
from engine.games.yaya_fugou.plays import STRAIGHT, BadPlay, Shape, beats, classify, enumerate_plays
from engine.games.yaya_fugou.scoring import PointTable, hand_result, titles_for
from tests.engine.contract_checks import play_random_match

GAME = get_game("yaya-fugou")

OPTION_SETS = [
    {"hands": 3},
    {"hands": 2, "exchange": False},
    {"hands": 2, "revolution": False},
    {"hands": 2, "points_daifugou": 5, "points_fugou": 3, "points_yaya_fugou": 2},
]


def _revealed(match, seat: int | None) -> set[str]:
    """What the rules show a seat beyond its hand: the cards it gave and received in the
    exchange (now in another hand), and the cards F's on the table were named as (a name, which
    may coincide with a card someone holds)."""
    view = match.view(seat)
    plays = view["pile"] + (view["last_trick"] or {}).get("plays", [])
    named = {card for p in plays for card in p["as"].values()}
    return named | (set() if seat is None else match.exchanged_cards(seat))


@pytest.mark.parametrize("players", range(4, 9))
@pytest.mark.parametrize("options", OPTION_SETS, ids=["default", "no-exchange", "no-revolution", "points"])
def test_random_matches_keep_the_contract_and_score_consistently(players, options):
    match = play_random_match(
        GAME, players, seed=players * 31 + len(options), options=options, revealed=_revealed
    )
    assert len(match.hands) == options["hands"]
    table = PointTable(
        options.get("points_daifugou", 3), options.get("points_fugou", 2), options.get("points_yaya_fugou", 1)
    )
    for hand in match.hands:
        details = hand["details"]
        assert sorted(details["order"]) == list(range(players))
        titles, places, scores = hand_result(details["order"], table)
        assert (details["titles"], details["places"], hand["scores"]) == (titles, places, scores)
        assert sum(hand["scores"]) == 0
        assert [details["titles"][s] for s in details["order"]] == list(titles_for(players))
        f_places = sorted(details["places"][s] for s in details["f_out"])
        assert f_places == list(range(players - len(details["f_out"]) + 1, players + 1))
    assert match.scores == [sum(h["scores"][s] for h in match.hands) for s in range(players)]


@pytest.mark.parametrize("players", range(4, 9))
def test_cards_are_conserved_and_the_table_clears_consistently(players):
    rng = random.Random(players)
    match = GAME.new_match(players, {"hands": 2})
    played: list[str] = []
    while not match.is_over:
        seat = match.to_act()[0]
        if seat == CHANCE:
            match.deal_random(rng)
            played = []
            continue
        view = match.view(None)
        assert sum(view["hand_counts"]) + view["aside_count"] + len(played) == len(DECK)
        shown = [c["card"] for c in view["trick"]["cards"]] if view["trick"] else []
        assert shown == played[len(played) - len(shown) :]
        events = match.apply(seat, rng.choice(match.legal_actions(seat)))
        for event in events:
            if event["type"] == "play":
                played += event["cards"]
    assert len(match.hands) == 2


@pytest.mark.parametrize("players", [4, 6, 8])
def test_bots_play_whole_matches_legally(players):
    rng = random.Random(players)
    match = GAME.new_match(players, seed=players)
    while not match.is_over:
        seat = match.to_act()[0]
        if seat == CHANCE:
            match.deal_random(rng)
            continue
        action = bot_action(match, seat, rng)
        match.apply(seat, action)
    assert len(match.hands) == 5


# ---- the legal list against brute force --------------------------------------------------------
def _key(cards: list[str], as_map: dict[str, str], shape: Shape) -> tuple:
    """What makes two plays different: the shape, the natural cards spent, how many F's, and for
    a straight the positions the F's fill (which F, and a set F's suit, do not matter)."""
    naturals = frozenset(c for c in cards if not IS_F[c])
    filled = frozenset(STRENGTH[n] for n in as_map.values()) if shape.kind == STRAIGHT else None
    return (shape, naturals, len(cards) - len(naturals), filled)


def _brute_force(hand: list[str]) -> set[tuple]:
    """Every distinct lead of `hand`, found by trying every subset and every naming of its F's."""
    found: set[tuple] = set()
    for size in range(1, len(hand) + 1):
        for cards in combinations(hand, size):
            fs = [c for c in cards if IS_F[c]]
            naturals = [c for c in cards if not IS_F[c]]
            # Any valid name shares a rank (set) or a suit (straight) with the natural cards.
            candidates = sorted(
                c for c in NATURALS if any(c[0] == n[0] or STRENGTH[c] == STRENGTH[n] for n in naturals)
            )
            namings = product(candidates, repeat=len(fs)) if naturals else [()]
            for names in namings:
                as_map = dict(zip(fs, names, strict=True)) if naturals else {}
                try:
                    shape = classify(list(cards), as_map)
                except BadPlay:
                    continue
                found.add(_key(list(cards), as_map, shape))
    return found


def _random_hand(rng: random.Random) -> list[str]:
    suit = rng.choice("HDCS")
    low = rng.randrange(0, 10)
    run = [c for c in DECK if c[0] == suit and not IS_F[c] and low <= STRENGTH[c] < low + rng.randrange(2, 6)]
    fs = rng.sample(F_CARDS, rng.choice([0, 1, 1, 2, 2]))
    others = rng.sample([c for c in DECK if c not in run and not IS_F[c]], 7 - min(len(run), 5) - len(fs))
    return run[:5] + fs + others


def test_the_legal_list_holds_every_distinct_play_exactly_once():
    rng = random.Random(2024)
    for _ in range(60):
        hand = _random_hand(rng)
        revolution = rng.random() < 0.3
        every_lead = _brute_force(hand)
        tops: list[Shape | None] = [None]
        for lead in rng.sample(enumerate_plays(_random_hand(rng), None, False), 3):
            tops.append(classify(lead["cards"], lead.get("as", {})))
        for top in tops:
            listed = enumerate_plays(hand, top, revolution)
            keys = [_key(a["cards"], a.get("as", {}), classify(a["cards"], a.get("as", {}))) for a in listed]
            assert len(keys) == len(set(keys)), f"a play is listed twice for {hand}"
            expected = {key for key in every_lead if top is None or beats(key[0], top, revolution)}
            assert set(keys) == expected, f"{hand} onto {top}"


def test_every_listed_action_is_accepted_and_equivalent_spellings_too():
    rng = random.Random(5)
    match = GAME.new_match(5, {"hands": 1})
    checked = 0
    while not match.is_over:
        seat = match.to_act()[0]
        if seat == CHANCE:
            match.deal_random(rng)
            continue
        legal = match.legal_actions(seat)
        if checked < 40:
            for action in rng.sample(legal, min(6, len(legal))):
                copy.deepcopy(match).apply(seat, action)
                respelled = _respell(action, match.view(seat)["hand"], rng)
                if respelled is not None:
                    twin = copy.deepcopy(match)
                    twin.apply(seat, respelled)
                    assert twin.view(None)["top"]["rank"] == _top_after(match, seat, action)["rank"]
            checked += 1
        match.apply(seat, rng.choice(legal))


def _top_after(match, seat: int, action: dict) -> dict:
    twin = copy.deepcopy(match)
    twin.apply(seat, action)
    return twin.view(None)["top"]


def _respell(action: dict, hand: list[str], rng: random.Random) -> dict | None:
    """The same play written differently: other F's, and other suits for a set's F's."""
    if action["type"] != "play" or not action.get("as"):
        return None
    held_fs = [c for c in hand if IS_F[c] and c not in action["cards"]]
    fs = [c for c in action["cards"] if IS_F[c]]
    naturals = [c for c in action["cards"] if not IS_F[c]]
    swap = {f: (held_fs.pop() if held_fs and rng.random() < 0.7 else f) for f in fs}
    shape = classify(action["cards"], action["as"])
    as_map = {}
    for f in fs:
        named = action["as"][f]
        if shape.kind != STRAIGHT:
            named = rng.choice("HDCS") + named[1:]
        as_map[swap[f]] = named
    return {"type": "play", "cards": [*naturals, *swap.values()][::-1], "as": as_map}


def test_an_illegal_play_leaves_the_match_untouched():
    rng = random.Random(9)
    match = GAME.new_match(4, {"hands": 1})
    match.deal_random(rng)
    seat = match.to_act()[0]
    hand = match.view(seat)["hand"]
    before = copy.deepcopy([match.view(s) for s in range(4)])
    for bad in (
        {"type": "play", "cards": hand[:1] * 2},
        {"type": "play", "cards": hand[:1], "as": "x"},
        {"type": "play", "cards": "H3"},
        {"type": "pass"},
        {"type": "give", "cards": hand[:2]},
    ):
        with pytest.raises(IllegalAction):
            match.apply(seat, bad)
    assert [match.view(s) for s in range(4)] == before and len(match.log) == 1
