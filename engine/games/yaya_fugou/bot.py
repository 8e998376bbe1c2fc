"""A sensible Yaya Fugou bot: one-step heuristics over the legal list, no search.

It sheds weak cards first and in groups (sets and straights rather than their pieces), keeps a
lone F or 2 back instead of spending it on an ordinary follow (unless someone is about to go
out), never leaves itself holding only F's (which would force an F-only finish and last place),
starts a revolution when its remaining cards are weak, and gives away its weakest cards in the
exchange. F's are used freely to lengthen sets and straights: self-play showed that pays better
than hoarding them. It reads only its view and the legal list.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any, Final

from engine.core import Action
from engine.games.yaya_fugou.cards import F_STRENGTH, IS_F, STRENGTH
from engine.games.yaya_fugou.plays import REVOLUTION_SIZE, shape_of

F_VALUE: Final = 20
"""How precious an F is compared with a natural card (a 2 is worth 13 in normal order)."""


@dataclass(frozen=True, slots=True)
class Weights:
    """The knobs of the play heuristic. The defaults beat a greedy "weakest play first, never
    pass" bot at every player count over 200 five-hand matches each (numbers in the commit
    that set them)."""

    pass_value: float = -6.5
    """A pass beats plays worse than this: a lone 2 or F is kept for later, an A is played."""
    urgent_pass_value: float = -30.0
    """When someone is about to go out (or we nearly are), almost any play beats a pass."""
    size_gain: float = 6.0
    """Value per card played: shedding several cards at once saves turns."""
    f_cost: float = 3.0
    """Cost per F spent inside a set or straight (an F alone is costed as the top card)."""
    break_cost: float = 3.0
    """Cost per rank whose set the play splits."""


WEIGHTS = Weights()

FINISH: Final = 10_000
F_ONLY_FINISH: Final = -1_000
STRANDED_ON_F: Final = -500


def _worth(card: str, revolution: bool) -> int:
    """How strong a card is right now: 0 for the weakest natural, 13 for the strongest, F above."""
    value = STRENGTH[card]
    if value == F_STRENGTH:
        return F_VALUE
    return 13 - value if revolution else value


def _mean_worth(cards: list[str], revolution: bool) -> float:
    naturals = [card for card in cards if not IS_F[card]]
    if not naturals:
        return 0.0
    return sum(_worth(card, revolution) for card in naturals) / len(naturals)


def choose(
    view: dict[str, Any], legal: list[Action], rng: random.Random, weights: Weights = WEIGHTS
) -> Action:
    """Pick an action from `legal` using only what `view` shows."""
    if legal[0]["type"] == "give":
        return _choose_give(view, legal)
    return _choose_play(view, legal, rng, weights)


def _choose_give(view: dict[str, Any], legal: list[Action]) -> Action:
    """Forced gives have no real choice; a free give keeps sets together and sheds the weakest."""
    if view.get("forced"):
        return legal[0]
    counts = Counter(STRENGTH[card] for card in view["hand"])

    def cost(action: Action) -> float:
        return sum(_worth(card, False) + 4 * (counts[STRENGTH[card]] > 1) for card in action["cards"])

    return min(legal, key=cost)


def _choose_play(view: dict[str, Any], legal: list[Action], rng: random.Random, weights: Weights) -> Action:
    hand: list[str] = view["hand"]
    revolution: bool = view["revolution"]
    counts = Counter(STRENGTH[card] for card in hand if not IS_F[card])
    hand_counts: list[int] = view["hand_counts"]
    seat = view["seat"]
    rivals_low = any(0 < n <= 2 for s, n in enumerate(hand_counts) if s != seat)
    urgent = len(hand) <= 3 or rivals_low
    can_flip = not view.get("revolution_used") and view.get("rules", {}).get("revolution", True)

    best: Action | None = None
    best_value = float("-inf")
    for action in legal:
        if action["type"] == "pass":
            value = weights.urgent_pass_value if urgent else weights.pass_value
        else:
            value = _play_value(action, hand, counts, revolution, can_flip, weights)
        value += rng.random() * 0.5
        if value > best_value:
            best, best_value = action, value
    assert best is not None
    return best


def _play_value(
    action: Action, hand: list[str], counts: Counter[int], revolution: bool, can_flip: bool, weights: Weights
) -> float:
    cards: list[str] = action["cards"]
    remaining = [card for card in hand if card not in cards]
    f_used = sum(IS_F[card] for card in cards)
    if not remaining:
        return F_ONLY_FINISH if f_used == len(cards) else FINISH
    if all(IS_F[card] for card in remaining):
        return STRANDED_ON_F
    shape = shape_of(action)
    named = list(action.get("as", {}).values()) + [card for card in cards if not IS_F[card]]
    power = max((_worth(card, revolution) for card in named), default=F_VALUE)
    used_by_rank = Counter(STRENGTH[card] for card in cards if not IS_F[card])
    broken = sum(1 for value, used in used_by_rank.items() if counts[value] > used)
    value = weights.size_gain * len(cards) - power - weights.f_cost * f_used - weights.break_cost * broken
    if shape.all_f:
        value -= F_VALUE
    if len(cards) >= REVOLUTION_SIZE and (revolution or can_flip):
        # The play flips strength for what is left: worth it when the rest gets stronger.
        value += 2.0 * (_mean_worth(remaining, not revolution) - _mean_worth(remaining, revolution))
    return value
