"""Yaya Fugou's fast paths list exactly what a fresh listing lists: shared play and gift objects
(equal to the plays `classify` reads, in the listing's order), kept through copies of a match."""

from __future__ import annotations

import copy
import pickle
import random

from engine import CHANCE, get_game
from engine.games.yaya_fugou.cards import DECK, F_CARDS, NATURALS, sorted_hand
from engine.games.yaya_fugou.plays import classify, enumerate_plays, play_shape
from engine.games.yaya_fugou.rules import free_give_actions, free_gives, give_action

GAME = get_game("yaya-fugou")
NATURAL_CARDS = sorted(NATURALS)


def _random_hand(rng: random.Random) -> list[str]:
    """A hand with 0–4 F's, often holding a long run of one suit (many straights)."""
    if rng.random() < 0.4:
        suit = rng.choice("HDCS")
        cards = [c for c in NATURAL_CARDS if (c[0] == suit and rng.random() < 0.8) or rng.random() < 0.1]
    else:
        cards = rng.sample(NATURAL_CARDS, rng.randint(3, 20))
    return sorted_hand(cards + rng.sample(list(F_CARDS), rng.choice([0, 1, 1, 2, 3, 4])))


def test_listed_plays_are_shared_objects_whose_known_shape_is_their_classified_shape():
    rng = random.Random(16)
    for _ in range(200):
        hand = _random_hand(rng)
        first = enumerate_plays(hand, None, False)
        again = enumerate_plays(list(reversed(hand)), None, False)
        assert first == again
        for action in first:
            shape = play_shape(action)
            assert shape is None or shape == classify(action["cards"], action.get("as", {}))
        # Singles, sets and straights without F's are always shared.
        assert all(a is b for a, b in zip(first, again, strict=True) if "as" not in a)


def test_free_gifts_are_shared_objects_listed_in_the_order_of_free_gives():
    rng = random.Random(17)
    for _ in range(300):
        hand = sorted_hand(rng.sample(list(DECK), rng.randint(2, 17)))
        for count in (1, 2):
            actions = free_give_actions(hand, count)
            assert actions == [{"type": "give", "cards": cards} for cards in free_gives(hand, count)]
            assert all(action is give_action(action["cards"]) for action in actions)


def test_a_matchs_leads_equal_a_fresh_listing_and_its_copies_list_the_same_shared_plays():
    rng = random.Random(18)
    checked = 0
    for seed in range(6):
        match = GAME.new_match(4 + seed % 5, seed=seed)
        while not match.is_over:
            seat = match.to_act()[0]
            if seat == CHANCE:
                match.deal_random(rng)
                continue
            legal = match.legal_actions(seat)
            if match.phase == "play" and match.view(seat)["top"] is None:
                assert legal == enumerate_plays(match.view(seat)["hand"], None, False)
                checked += 1
                for twin in (copy.deepcopy(match), pickle.loads(pickle.dumps(match))):
                    assert twin.legal_actions(seat) == legal  # equal copies, played by classifying
                again = match.clone().legal_actions(seat)  # a search's clone keeps the shared objects
                assert all(a is b for a, b in zip(again, legal, strict=True))
            match.apply(seat, rng.choice(legal))
    assert checked > 50
