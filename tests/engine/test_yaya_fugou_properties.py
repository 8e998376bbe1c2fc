"""Yaya Fugou's own invariants for the contract suite (tests/engine/test_contract.py), at every
player count and option set: cards conserved, the table clearing consistently, zero-sum hands,
places and titles consistent; plus a brute-force check that the legal list holds every distinct
play exactly once, and a fresh reading of the seed's play section played alongside the engine."""

from __future__ import annotations

import copy
import random
from itertools import combinations, product

import pytest

from engine import CHANCE, IllegalAction, Match, get_game
from engine.bots import bot_action
from engine.games.yaya_fugou.cards import DECK, F_CARDS, IS_F, NATURALS, STRENGTH
from engine.games.yaya_fugou.options import YayaFugouOptions
from engine.games.yaya_fugou.plays import STRAIGHT, BadPlay, Shape, beats, classify, enumerate_plays
from engine.games.yaya_fugou.rules import YayaFugouMatch
from engine.games.yaya_fugou.scoring import PointTable, hand_result, titles_for
from tests.engine.contract_checks import GameChecks, Variant

GAME = get_game("yaya-fugou")

OPTION_SETS = [
    {"hands": 3},
    {"hands": 2, "exchange": False},
    {"hands": 2, "revolution": False},
    {"hands": 2, "points_daifugou": 5, "points_fugou": 3, "points_yaya_fugou": 2},
]


def revealed_cards(match: Match, seat: int | None) -> set[str]:
    """What the rules show a seat beyond its hand: the cards it gave and received in the
    exchange (now in another hand), and the cards F's on the table were named as (a name, which
    may coincide with a card someone holds)."""
    assert isinstance(match, YayaFugouMatch)
    view = match.view(seat)
    plays = view["pile"] + (view["last_trick"] or {}).get("plays", [])
    named = {card for p in plays for card in p["as"].values()}
    return named | (set() if seat is None else match.exchanged_cards(seat))


def check_cards_are_conserved_and_the_table_clears_consistently(match: Match, played: list[str]) -> None:
    """Every card is in a hand, set aside or played this hand; the trick on the table shows the
    last cards played, in order."""
    view = match.view(None)
    assert sum(view["hand_counts"]) + view["aside_count"] + len(played) == len(DECK)
    shown = [c["card"] for c in view["trick"]["cards"]] if view["trick"] else []
    assert shown == played[len(played) - len(shown) :]


def check_hands_score_by_place(match: Match) -> None:
    """The match plays the hands it was set to (five by default); each hand's order covers every
    seat, its titles, places and scores follow from the order and the point table, it is
    zero-sum, and the seats out by F's alone take the last places."""
    players = match.players
    options = match.options
    assert isinstance(options, YayaFugouOptions)
    assert len(match.hands) == options.hands
    table = PointTable(options.points_daifugou, options.points_fugou, options.points_yaya_fugou)
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


CHECKS = GameChecks(
    random_play=[
        Variant(players, options, seeds=(players * 31 + len(options),))
        for players in range(4, 9)
        for options in OPTION_SETS
    ],
    bot_play=[Variant(players, {}, seeds=(players,)) for players in (4, 6, 8)],
    revealed=revealed_cards,
    check_turn=check_cards_are_conserved_and_the_table_clears_consistently,
    check_result=check_hands_score_by_place,
)


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


# ---- an independent reading of the seed, played alongside the engine ----------------------------
SEED_LADDER = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K", "1", "2"]


def _seed_shape(cards: list[str], as_map: dict[str, str]) -> tuple[str, int, int, bool]:
    """(kind, size, strength, F's only) of a play, written from the seed's text without the
    engine's helpers: an F beside natural cards is the card it names, F's alone are on top."""
    naturals = [c for c in cards if not c.endswith("F")]
    if not naturals:
        return ("single" if len(cards) == 1 else "set", len(cards), 99, True)
    members = naturals + [as_map[c] for c in cards if c.endswith("F")]
    ranks = sorted(SEED_LADDER.index(c[1:]) for c in members)
    if len(set(ranks)) == 1:
        return ("single" if len(members) == 1 else "set", len(members), ranks[0], False)
    assert len(members) >= 3 and len({c[0] for c in members}) == 1
    assert ranks == list(range(ranks[0], ranks[0] + len(ranks)))
    return ("straight", len(members), ranks[-1], False)


def _seed_beats(new: tuple, old: tuple, revolution: bool) -> bool:
    if new[:2] != old[:2] or old[3]:
        return False
    return new[3] or (new[2] < old[2] if revolution else new[2] > old[2])


def _seed_opening_leader(hands: list[list[str]], titles: list[str] | None) -> int:
    """Coins 3, else the weakest dealt card (suits coins, grail, tree, sword); later the 大貧民."""
    if titles is not None:
        return titles.index("daihinmin")
    dealt = [
        (SEED_LADDER.index(c[1:]) if not c.endswith("F") else 99, "DHCS".index(c[0]), s)
        for s, hand in enumerate(hands)
        for c in hand
    ]
    return min(dealt)[2]


def _seed_next(hands: list[list[str]], seat: int) -> int:
    """The next seat after `seat`, by seat number, that still holds cards."""
    players = len(hands)
    return next(s % players for s in range(seat + 1, seat + players + 1) if hands[s % players])


@pytest.mark.parametrize("players", range(4, 9))
def test_turns_clearing_revolution_and_places_agree_with_a_fresh_reading_of_the_seed(players):
    # Seed 003, the play section: counter-rotation by seat, passes for one turn, clearing to the
    # last player (or the next seat after one who went out), 4+ cards flip strength once, and
    # places in going-out order with F-only finishers last (RULINGS: the first of them lowest).
    for seed in range(2):
        rng = random.Random(players * 100 + seed)
        match = GAME.new_match(players, {"hands": 2})
        titles = None
        while not match.is_over:
            match.deal_random(rng)
            while match.phase == "exchange":
                seat = match.to_act()[0]
                match.apply(seat, bot_action(match, seat, rng))
            hands = [list(match.view(s)["hand"]) for s in range(players)]
            turn = _seed_opening_leader(hands, titles)
            top, last, passed = None, -1, set()
            revolution = used = False
            went_out: list[int] = []
            f_only: list[int] = []

            while True:
                assert match.to_act() == [turn]
                view = match.view(None)
                assert (view["revolution"], view["revolution_used"]) == (revolution, used)
                legal = match.legal_actions(turn)
                for action in legal:
                    if action["type"] == "play" and top is not None:
                        assert _seed_beats(
                            _seed_shape(action["cards"], action.get("as", {})), top, revolution
                        )
                action = bot_action(match, turn, rng) if seed else rng.choice(legal)
                match.apply(turn, action)
                if action["type"] == "pass":
                    passed.add(turn)
                    if {s for s in range(players) if hands[s] and s != last} <= passed:
                        top, passed = None, set()
                        turn = last if hands[last] else _seed_next(hands, last)
                    else:
                        turn = _seed_next(hands, turn)
                    continue
                shape = _seed_shape(action["cards"], action.get("as", {}))
                for card in action["cards"]:
                    hands[turn].remove(card)
                if len(action["cards"]) >= 4 and revolution:
                    revolution, used = False, True
                elif len(action["cards"]) >= 4 and not used:
                    revolution = True
                top, last, passed = shape, turn, set()
                if not hands[turn]:
                    (f_only if shape[3] else went_out).append(turn)
                holding = [s for s in range(players) if hands[s]]
                if len(holding) == 1:
                    assert match.hands[-1]["details"]["order"] == went_out + holding + f_only[::-1]
                    break
                turn = _seed_next(hands, turn)
            titles = match.hands[-1]["details"]["titles"]
