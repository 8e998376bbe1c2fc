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


def checked_order(order: Any, cards: Sequence[str], what: str = "the shuffle") -> list[str]:
    """`order` if it is a list holding exactly `cards` (repeats counted), else IllegalAction.

    Shuffles come from the server, a test or a puzzle; a wrong one must be refused, never dealt."""
    if (
        not isinstance(order, list)
        or len(order) != len(cards)
        or not all(isinstance(card, str) for card in order)
        or Counter(order) != Counter(cards)
    ):
        raise IllegalAction(f"{what} must be an order of this game's {len(cards)} cards")
    return order
