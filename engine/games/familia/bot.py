"""A Familia bot that plays from its own view and legal actions only.

It values each face card by what it would change in the final score of whoever wins it (the
real scoring function on that player's won cards, a lost misère bonus included), counting a
teammate's gain as its own and an opponent's gain against it. Then:
- pile choice: the pile whose remaining face cards are worth most to it, weighted by how likely
  its hand is to win a trick led (or trumped) in those suits;
- play: each legal card is judged on the trick as it stands (batting and rank collisions
  included), so it plays to win a face card it wants, bats away a card that would hand an
  opponent a good face card, dumps or collides its own winning card when the face card would
  cost it, and otherwise keeps its high cards and jokers for later.
"""

from __future__ import annotations

import random
from typing import Any

from . import scoring
from .rules import JOKER, RANK_VALUE, judge_trick, strength

SUITS = ("S", "H", "D", "C")
PILE_SUITS = {"black": ("S", "C"), "red": ("H", "D")}
OPPONENT_WEIGHT = 0.6


def _gain(view: dict[str, Any], seat: int, face: str) -> float:
    """How much `seat`'s own hand score changes if it wins `face` (cached in the view copy the
    bot was given, so one decision scores each (seat, face) once)."""
    cache = view.setdefault("_bot_gains", {})
    if (seat, face) in cache:
        return cache[(seat, face)]
    role = view["roles"][seat]
    crest = view["crests"][seat]
    sets = view.get("face_sets", 1)
    won = view["won"][seat]
    tricks = view["tricks_won"][seat]
    # roles only (a trick counted so no misère); the misère is weighed separately below
    before = scoring.score_player(won, role, crest, max(tricks, 1), sets).total
    after = float(scoring.score_player([*won, face], role, crest, max(tricks, 1), sets).total)
    if tricks == 0:
        after -= scoring.misere_bonus(sets) * _misere_chance(view)
    cache[(seat, face)] = float(after - before)
    return cache[(seat, face)]


def _misere_chance(view: dict[str, Any]) -> float:
    """A rough chance that a player with no trick yet stays without one for the rest of the hand."""
    per_deal = view.get("tricks_per_deal", 10)
    left = (
        per_deal
        - view.get("tricks_played", 0)
        - 1
        + (view.get("deals_total", 1) - view.get("deal_no", 1)) * per_deal
    )
    players = view["players"]
    return ((players - 1) / players) ** max(0, left)


def _worth_to_me(view: dict[str, Any], winner: int | None, face: str) -> float:
    """The face card's value from the bot's side: teammates' gains count, opponents' count against."""
    if winner is None:
        return 0.0
    gain = _gain(view, winner, face)
    me = view["seat"]
    if view["teams"][winner] == view["teams"][me]:
        return gain
    rivals = len(set(view["teams"])) - 1
    return -gain * (OPPONENT_WEIGHT if rivals > 1 else 1.0)


def _card_cost(card: str, trump: str | None) -> float:
    """What spending a card costs in later tricks: high cards, trumps and jokers are worth keeping."""
    if card == JOKER:
        return 2.5
    cost = RANK_VALUE[card[1:]] * 0.12
    if card[0] == trump:
        cost += 0.8
    return cost


def _win_chance(hand: list[str], suit: str, others: int) -> float:
    """A rough chance that this hand wins a trick led in (or trumped with) `suit`."""
    in_suit = [RANK_VALUE[c[1:]] for c in hand if c != JOKER and c[0] == suit]
    if not in_suit:
        return 0.05
    top = max(in_suit) / 12
    return min(0.95, top ** max(1, others) + 0.05 * (len(in_suit) - 1))


def choose_pile(view: dict[str, Any], legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """The pile whose unseen face cards are worth most: to the bot if its hand can win them,
    otherwise by who else would likely take them."""
    me = view["seat"]
    seen = [card for cards in view["won"] for card in cards] + list(view["discarded_faces"])
    sets = view.get("face_sets", 1)
    best_action, best_score = legal[0], float("-inf")
    for action in legal:
        suits = PILE_SUITS[action["pile"]]
        candidates = [suit + rank for suit in suits for rank in ("K", "Q", "J") for _ in range(sets)]
        for card in seen:
            if card in candidates:
                candidates.remove(card)
        candidates = candidates or [suit + "K" for suit in suits]
        others = [seat for seat in range(view["players"]) if seat != me]
        score = 0.0
        for face in candidates:
            chance = _win_chance(view["hand"], face[0], view["players"] - 1)
            elsewhere = sum(_worth_to_me(view, seat, face) for seat in others) / len(others)
            score += chance * _gain(view, me, face) + (1 - chance) * elsewhere
        score /= len(candidates)
        score += rng.random() * 0.01
        if score > best_score:
            best_action, best_score = action, score
    return best_action


def choose_card(view: dict[str, Any], legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """The card whose outcome on the trick so far (batting included) is worth most, less what
    the card would be worth in later tricks; outcomes that later players can still change count
    by how safe the winning card is."""
    me = view["seat"]
    trick = view["trick"]
    face = trick["face"]
    trump = trick["trump"]
    plays = [(entry["seat"], entry["card"]) for entry in trick["cards"]]
    still_to_play = view["players"] - len(plays) - 1
    rule = view["batting_rule"]
    best_action, best_score = legal[0], float("-inf")
    for action in legal:
        card = action["cards"][0]
        trial = [*plays, (me, card)]
        led = trick["led_suit"]
        if led is None and trick["mode"] == "trump":
            led = next((c[0] for _, c in trial if c != JOKER), None)
        verdict = judge_trick(trial, led, trump, rule)
        value = _worth_to_me(view, verdict.winner, face)
        if still_to_play and verdict.winner is not None:
            # later players may still beat or bat the winning card: trust strong cards more
            tier, rank = strength(verdict.winning_card or card, led, trump)
            hold = min(1.0, (rank / 12) ** still_to_play + (0.3 if tier == 2 else 0.0))
            value *= hold
        score = value - _card_cost(card, trump) + rng.random() * 0.01
        if score > best_score:
            best_action, best_score = action, score
    return best_action


def choose(view: dict[str, Any], legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """Pick one of `legal` for the seat whose `view` this is."""
    view = dict(view)  # the bot's scratch cache must not touch the caller's view
    first = legal[0]
    if first["type"] == "choose" and "crest" in first:
        return rng.choice(legal)
    if first["type"] == "choose":
        return choose_pile(view, legal, rng)
    if first["type"] == "play" and view.get("trick"):
        return choose_card(view, legal, rng)
    return rng.choice(legal)
