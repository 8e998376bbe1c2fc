"""Helpers for chance actions: every game's shuffle is an explicit, checked order of its cards."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from engine.core import Action, IllegalAction


def shuffle_action(cards: Sequence[str], rng: random.Random) -> Action:
    """A `shuffle` action holding `cards` in a random order drawn from `rng`."""
    deck = list(cards)
    rng.shuffle(deck)
    return {"type": "shuffle", "deck": deck}


_STR = {str}


def checked_order(order: Any, cards: Sequence[str], what: str = "the shuffle") -> list[str]:
    """`order` if it is a list holding exactly `cards` (repeats counted), else IllegalAction.

    Shuffles come from the server, a test or a puzzle; a wrong one must be refused, never dealt."""
    if not isinstance(order, list) or len(order) != len(cards):
        raise IllegalAction(f"{what} must be an order of this game's {len(cards)} cards")
    distinct = set(cards)
    if len(distinct) == len(cards):
        # No repeats (the common case): the same set of as many cards is a permutation. Only
        # strings equal the card codes, so a set equal to them holds nothing else.
        same = set(map(type, order)) <= _STR and set(order) == distinct
    else:
        same = all(isinstance(card, str) for card in order) and Counter(order) == Counter(cards)
    if not same:
        raise IllegalAction(f"{what} must be an order of this game's {len(cards)} cards")
    return order
