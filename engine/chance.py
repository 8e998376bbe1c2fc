"""Helpers for chance actions: every game's shuffle is an explicit, checked order of its cards."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any, Final

from engine.core import Action, IllegalAction


def shuffle_action(cards: Sequence[str], rng: random.Random) -> Action:
    """A `shuffle` action holding `cards` in a random order drawn from `rng`."""
    deck = list(cards)
    shuffle(deck, rng)
    return {"type": "shuffle", "deck": deck}


def shuffle(deck: list[str], rng: random.Random) -> None:
    """`rng.shuffle(deck)`, drawing the very same numbers from `rng` in the same order (so the same
    seed deals the same cards), in a loop that compiles to C (engine/build.py): `random.shuffle`
    is Python code, and a 112-card shuffle was a sixth of a whole random Holy Grail hand.

    This is CPython's Fisher-Yates (`Random.shuffle` through `_randbelow_with_getrandbits`),
    taken only for a plain `random.Random`; any other generator shuffles itself.
    tests/engine/test_chance.py checks the orders and the generator's state agree."""
    if type(rng) is not random.Random:
        rng.shuffle(deck)
        return
    getrandbits = rng.getrandbits
    if len(deck) > _BATCHED_UP_TO:
        for i in range(len(deck) - 1, 0, -1):
            n = i + 1
            k = n.bit_length()
            j: int = getrandbits(k)
            while j >= n:
                j = getrandbits(k)
            deck[i], deck[j] = deck[j], deck[i]
        return
    # `getrandbits(k)` for k <= 32 is the generator's next 32-bit word shifted right by 32 - k,
    # and `getrandbits(32 * m)` is its next m words, the first one lowest. For a deck of at most
    # 255 cards k <= 8, so a draw is the top byte of its word, shifted. Words are drawn in
    # batches of one per step still to go (each step takes at least one), so never more words
    # than `random.shuffle` draws, and in the same order.
    words = b""
    at = 0  # the byte offset of the next unused word in `words`
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        shift = 8 - n.bit_length()
        while True:
            if at == len(words):
                words = getrandbits(32 * i).to_bytes(4 * i, "little")
                at = 0
            j = words[at + 3] >> shift
            at += 4
            if j < n:
                break
        deck[i], deck[j] = deck[j], deck[i]


_BATCHED_UP_TO: Final = 255
"""The largest deck `shuffle` draws for in batches (each draw then fits in a word's top byte)."""


_DISTINCT: dict[int, tuple[tuple[str, ...], frozenset[str]]] = {}
"""id of a card tuple → (that tuple, its cards as a set): a game's card set per player count,
made once and kept, is checked against without building its set again (the memo keeps the tuple
alive, so its id is never reused while listed here)."""
_DISTINCT_LIMIT: Final = 64


def checked_order(order: Any, cards: Sequence[str], what: str = "the shuffle") -> list[str]:
    """`order` if it is a list holding exactly `cards` (repeats counted), else IllegalAction.

    Shuffles come from the server, a test or a puzzle; a wrong one must be refused, never dealt."""
    if not isinstance(order, list) or len(order) != len(cards):
        raise IllegalAction(f"{what} must be an order of this game's {len(cards)} cards")
    if type(cards) is tuple:
        known = _DISTINCT.get(id(cards))
        if known is None or known[0] is not cards:
            if len(_DISTINCT) >= _DISTINCT_LIMIT:  # tuples made per match: keep the memo small
                _DISTINCT.clear()
            known = _DISTINCT[id(cards)] = (cards, frozenset(cards))
        distinct = known[1]
    else:
        distinct = frozenset(cards)
    if len(distinct) == len(cards):
        # No repeats (the common case): the same set of as many cards is a permutation. Only
        # strings equal the card codes, so a set equal to them holds nothing else.
        same = all(type(card) is str for card in order) and distinct == set(order)
    else:
        same = all(isinstance(card, str) for card in order) and Counter(order) == Counter(cards)
    if not same:
        raise IllegalAction(f"{what} must be an order of this game's {len(cards)} cards")
    return order


def checked_indices(
    order: Any, index_of: dict[str, int], wanted: list[bool], count: int, what: str = "the shuffle"
) -> list[int]:
    """The cards of `order` as their indices in `index_of` if `order` is a list holding each card
    whose index is `wanted` exactly once (`count` of them) and nothing else, else IllegalAction:
    `checked_order` for a game that holds its cards as indices, checked while converting."""
    if isinstance(order, list) and len(order) == count:
        left = wanted[:]  # each wanted card, until it is seen
        indices: list[int] = []
        for card in order:
            if type(card) is not str:
                break
            index = index_of.get(card, -1)
            if index < 0 or not left[index]:
                break
            left[index] = False
            indices.append(index)
        else:
            return indices
    raise IllegalAction(f"{what} must be an order of this game's {count} cards")
