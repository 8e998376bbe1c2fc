"""Play the same cards again: a match that reuses another finished match's chance actions.

A rematch with `same_deals_as` takes the source match's chance actions (every shuffle and
draw, in log order) instead of random ones; everything else is played afresh. The plan is a
pure function of the source's stored log, so every server process, and every rebuild of the
match after a restart, supplies the same actions: the `n`-th chance action of the rematch is
the `n`-th of the plan, counted from the rematch's own log. When the rematch needs more chance
actions than the source had (a hand that went differently needs a redeal), or the engine
refuses a planned one (the host changed the options since), a fresh random one is dealt.

Rotation (seat s gets what seat s-1 had) goes through the engine contract, with no game code:
while the source's log is replayed, the cards each seat received from a shuffle are read from
`view(seat)["hand"]` before and after it. Every game deals the first `players × k` cards of a
shuffle as k-card slices to consecutive seats (turn order is seat order; Holy Grail's later
dealing rounds come from the stock, relative to a trick's winner), so moving each slice one
place on rotates the hands; a deck of distinct codes dealt some other way has the positions
that fed seat s+1 filled with seat s's cards. Positions no seat received (the dog, the kitty,
a stock, a draw pile) and every other field (Familia's face-card piles, Holy Grail's
first-player draw) stay as they were, so only the hands move.
"""

from __future__ import annotations

import copy
from collections import Counter, OrderedDict
from dataclasses import dataclass
from typing import Any, Protocol

from engine import CHANCE, GAMES, Game, Match

Action = dict[str, Any]
PLAN_CACHE_SIZE = 64


class MatchFacts(Protocol):
    """What the comparison reads of a stored match (a `matches` row has it)."""

    id: int
    game_id: str
    players: int
    options: dict[str, Any]
    rotate_deals: bool


@dataclass(frozen=True)
class DealPlan:
    """The chance actions a rematch deals, in order (already rotated when asked)."""

    source_id: int
    rotate: bool
    actions: tuple[Action, ...]

    def next_action(self, match: Match) -> Action | None:
        """The planned chance action for the match's next chance turn (a copy the engine may
        keep), or None when the plan is used up."""
        index = sum(1 for seat, _ in match.log if seat == CHANCE)
        if index >= len(self.actions):
            return None
        return copy.deepcopy(self.actions[index])


def _hand(match: Match, seat: int) -> Counter[str]:
    return Counter(match.view(seat).get("hand") or [])


def rotate_deal(action: Action, dealt: list[Counter[str]]) -> Action:
    """`action` with its `deck` permuted so seat s+1 receives what `dealt[s]` (seat s's cards from
    it) holds. Unchanged when the deal has no deck or the seats did not get as many cards each."""
    deck = action.get("deck")
    players = len(dealt)
    if not isinstance(deck, list) or players < 2 or len({sum(c.values()) for c in dealt}) != 1:
        return action
    order = _shift_slices(deck, dealt) or _move_cards(deck, dealt)
    return {**action, "deck": order} if order is not None else action


def _shift_slices(deck: list[str], dealt: list[Counter[str]]) -> list[str] | None:
    """When the deck's first `players` slices of k cards went to consecutive seats (how every
    game deals), move each slice one place on. Exact even when a code appears twice (Familia's
    several decks), where which copy went where cannot be told by the codes."""
    players, size = len(dealt), sum(dealt[0].values())
    if size == 0 or players * size > len(deck):
        return None
    slices = [deck[j * size : (j + 1) * size] for j in range(players)]
    counted = [Counter(part) for part in slices]
    for first in range(players):
        if all(counted[j] == dealt[(first + j) % players] for j in range(players)):
            shifted = [card for j in range(players) for card in slices[(j - 1) % players]]
            return shifted + deck[players * size :]
    return None


def _move_cards(deck: list[str], dealt: list[Counter[str]]) -> list[str] | None:
    """Any other dealing pattern, for decks whose codes are all different: the positions that
    fed seat s+1 get seat s's cards, in deck order."""
    if len(set(deck)) != len(deck):
        return None
    owner = {card: seat for seat, cards in enumerate(dealt) for card in cards}
    players = len(dealt)
    positions: list[list[int]] = [[] for _ in range(players)]
    for index, card in enumerate(deck):
        if card in owner:
            positions[owner[card]].append(index)
    if sum(len(p) for p in positions) != sum(sum(c.values()) for c in dealt):
        return None
    order = list(deck)
    for seat in range(players):
        for source, place in zip(positions[seat], positions[(seat + 1) % players], strict=True):
            order[place] = deck[source]
    return order


def plan_deals(
    game: Game, players: int, options: dict[str, Any], log: list[tuple[int, Action]], rotate: bool
) -> list[Action]:
    """The source match's chance actions in order, each rotated one seat when `rotate`."""
    match = game.new_match(players, options)
    plan: list[Action] = []
    for seat, action in log:
        if seat != CHANCE:
            match.apply(seat, action)
            continue
        if not rotate:
            plan.append(copy.deepcopy(action))
            match.apply(seat, action)
            continue
        before = [_hand(match, s) for s in range(players)]
        match.apply(seat, action)
        dealt = [_hand(match, s) - before[s] for s in range(players)]
        plan.append(rotate_deal(copy.deepcopy(action), dealt))
    return plan


class PlanCache:
    """Plans of recently used sources; a finished match's log never changes, so they stay true."""

    def __init__(self, size: int = PLAN_CACHE_SIZE) -> None:
        self.size = size
        self._plans: OrderedDict[tuple[int, bool], DealPlan] = OrderedDict()

    def get(self, source_id: int, rotate: bool) -> DealPlan | None:
        plan = self._plans.get((source_id, rotate))
        if plan is not None:
            self._plans.move_to_end((source_id, rotate))
        return plan

    def put(self, plan: DealPlan) -> None:
        self._plans[(plan.source_id, plan.rotate)] = plan
        self._plans.move_to_end((plan.source_id, plan.rotate))
        while len(self._plans) > self.size:
            self._plans.popitem(last=False)


def fresh_hands(
    game: Game, players: int, options: dict[str, Any], log: list[tuple[int, Action]], plan: DealPlan
) -> list[int]:
    """Hand numbers of the rematch in which a chance action was not the planned one (fresh cards)."""
    match = game.new_match(players, options)
    fresh: list[int] = []
    index = 0
    for seat, action in log:
        match.apply(seat, action)
        if seat != CHANCE:
            continue
        planned = plan.actions[index] if index < len(plan.actions) else None
        index += 1
        if planned != action:
            hand_no = int(match.view(None).get("hand_no") or 0)
            if hand_no not in fresh:
                fresh.append(hand_no)
    return fresh


def seat_map(players: int, rotate: bool, this_is_rematch: bool) -> list[int]:
    """For each seat of this match, the other match's seat that held the same cards."""
    step = (-1 if this_is_rematch else 1) if rotate else 0
    return [(seat + step) % players for seat in range(players)]


def compare_hands(
    this_hands: list[list[Any]], other_hands: list[list[Any]], mapping: list[int]
) -> list[dict[str, Any]]:
    """Hand by hand: this match's scores per seat and, beside each, the other match's score of
    the seat that held the same cards (pairs only hands both matches finished)."""
    rows = []
    for index in range(min(len(this_hands), len(other_hands))):
        mine, theirs = this_hands[index], other_hands[index]
        rows.append(
            {
                "hand_no": index + 1,
                "scores": list(mine),
                "other_scores": [theirs[other] if other < len(theirs) else None for other in mapping],
            }
        )
    return rows


# ---- the comparison shown on both matches' pages ------------------------------------------------
MAX_COMPARED_REMATCHES = 5
"""A match page compares with at most this many of its newest same-deal rematches."""


def fresh_hands_of(
    source: MatchFacts,
    source_log: list[tuple[int, Action]],
    rematch: MatchFacts,
    rematch_log: list[tuple[int, Action]],
) -> list[int]:
    """The rematch's hands dealt fresh cards, from both matches' stored facts and logs (the
    comparison app/store/history.py shows on both matches' pages). CPU-bound: run it in a thread."""
    game = GAMES.get(rematch.game_id)
    if game is None:
        return []
    actions = plan_deals(game, source.players, source.options, source_log, rematch.rotate_deals)
    plan = DealPlan(source_id=source.id, rotate=rematch.rotate_deals, actions=tuple(actions))
    return fresh_hands(game, rematch.players, rematch.options, rematch_log, plan)
