"""A Fairy Five Hundred bot that plays from its own view and the legal actions only.

It keeps no memory between decisions, so everything it knows is in the view: its hand, the
auction, the contract, the named cards (and who has been revealed), the trick on the table and an
open misère's hand. The heuristics are simple on purpose: estimate tricks from trumps, F's, J's
and kings to bid; name the strongest trump it lacks; keep trumps and kings in the exchange; take
tricks cheaply with trump management; and in misère and Ramsch get rid of dangerous cards while
losing tricks.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

from engine.core import Action
from engine.games.fairy_500.deck import (
    FAIRY_STRENGTH,
    NO_TRUMP,
    SUITS,
    Ranking,
    build_ranking,
    card_set,
    is_fairy,
    plain_rank_value,
    suit_of,
)

View = dict[str, Any]


def _value(card: str) -> int:
    """Printed strength within a suit, with an F above a king."""
    return 99 if is_fairy(card) else plain_rank_value(card)


@lru_cache(maxsize=64)
def _ranking(players: int, mode: str, trump: str | None) -> Ranking:
    return build_ranking(card_set(players), mode, trump)


@lru_cache(maxsize=8)
def _cards(players: int) -> tuple[str, ...]:
    return tuple(card_set(players))


def choose(view: View, legal: list[Action], rng: random.Random) -> Action:
    """Pick one of `legal` for the seat whose view this is."""
    kind = legal[0]["type"]
    if kind in ("pass", "bid"):
        return _choose_bid(view, legal)
    if kind == "call":
        return _choose_call(view, legal)
    if kind == "discard":
        return _choose_discard(view, legal)
    return _choose_play(view, legal)


# ---- bidding -------------------------------------------------------------------------------------
def _trump_strength_order(players: int, trump: str) -> list[str]:
    """Every trump of the set, strongest first."""
    ranking = _ranking(players, "trump", trump)
    table = ranking.strength[trump]
    trumps = [card for card in _cards(players) if ranking.suit[card] == trump]
    return sorted(trumps, key=lambda card: -table[card])


def estimate_trump_tricks(hand: list[str], players: int, trump: str) -> float:
    """Tricks the hand should take by itself with `trump` as trumps."""
    ranking = _ranking(players, "trump", trump)
    order = _trump_strength_order(players, trump)
    held = set(hand)
    mine = [card for card in order if card in held]
    estimate = 0.0
    missing_above = 0
    for card in order:
        if card not in held:
            missing_above += 1
            continue
        lower_held = len(mine) - mine.index(card) - 1
        if missing_above == 0:
            estimate += 1.0
        elif missing_above <= lower_held:
            estimate += 0.75 if missing_above == 1 else 0.5
        else:
            estimate += 0.15
    estimate += max(0, len(mine) - 3) * 0.6
    side = [card for card in hand if ranking.suit[card] != trump]
    estimate += _side_winners(side)
    side_suits = {suit_of(card) for card in side}
    voids = sum(1 for suit in SUITS if suit != trump and suit not in side_suits)
    if len(mine) >= 4:
        estimate += 0.6 * voids
    return estimate


def _side_winners(cards: list[str]) -> float:
    by_suit: dict[str, list[int]] = {}
    for card in cards:
        if not is_fairy(card):
            by_suit.setdefault(suit_of(card), []).append(plain_rank_value(card))
    total = 0.0
    for values in by_suit.values():
        values.sort(reverse=True)
        if values[0] == 23:
            total += 0.8
            if len(values) > 1 and values[1] == 22:
                total += 0.5
        elif values[0] == 22 and len(values) > 1:
            total += 0.35
    return total


def estimate_notrump_tricks(hand: list[str]) -> float:
    fairies = sum(1 for card in hand if is_fairy(card))
    return fairies * 1.0 + _side_winners(hand) * 1.1


def misere_danger(hand: list[str]) -> float:
    """How likely the hand is to be forced to win a trick: F's and high cards, low cards are safe."""
    danger = 0.0
    for card in hand:
        if is_fairy(card):
            danger += 1.5
            continue
        value = plain_rank_value(card)
        if value >= 23:
            danger += 0.6
        elif value >= 22:
            danger += 0.4
        elif value >= 20:
            danger += 0.2
        elif value >= 10:
            danger += 0.05
    return danger


def _helpers(view: View) -> float:
    """Tricks expected from a lieutenant or partner."""
    players = view["players"]
    if view.get("partners"):
        return 2.0
    if players == 3:
        return 0.0
    return 1.5 if players <= 6 else 2.5


def _choose_bid(view: View, legal: list[Action]) -> Action:
    hand = view["hand"]
    players = view["players"]
    legal_codes = {action["bid"]: action for action in legal if action["type"] == "bid"}
    bonus = _helpers(view) + 1.0  # the kitty usually adds about a trick
    options: list[tuple[float, str]] = []
    for trump in SUITS:
        options.append((estimate_trump_tricks(hand, players, trump) + bonus, trump))
    options.append((estimate_notrump_tricks(hand) + bonus, NO_TRUMP))
    options.sort(reverse=True)
    for estimate, trump in options:
        reach = min(10, int(estimate))
        for tricks in range(6, reach + 1):
            code = f"{tricks}{trump}"
            if code in legal_codes:
                return legal_codes[code]
    danger = misere_danger(hand)
    for code, limit in (("hand_misere", 0.5), ("misere", 1.0)):
        if danger <= limit * (1.0 if players <= 4 else 0.6) and code in legal_codes:
            return legal_codes[code]
    return {"type": "pass"}


# ---- naming a lieutenant -------------------------------------------------------------------------
def _choose_call(view: View, legal: list[Action]) -> Action:
    callable_cards = {action["card"] for action in legal}
    contract = view["contract"]
    players = view["players"]
    hand = set(view["hand"])
    if contract["trump"] == NO_TRUMP:
        preferred = ["HF", "DF", "CF", "SF", *(suit + "K" for suit in SUITS)]
    else:
        preferred = _trump_strength_order(players, contract["trump"])
    for card in preferred:
        if card in callable_cards and card not in hand:
            return {"type": "call", "card": card}
    return legal[0]


# ---- the kitty exchange --------------------------------------------------------------------------
def _keep_value(card: str, view: View, counts: dict[str, int]) -> float:
    contract = view["contract"]
    players = view["players"]
    if contract["kind"] == "misere":
        if is_fairy(card):
            return -100 - FAIRY_STRENGTH[suit_of(card)]
        return -plain_rank_value(card)
    trump = contract["trump"]
    if trump == NO_TRUMP:
        if is_fairy(card):
            return 300
        ranking = _ranking(players, "notrump", None)
    else:
        ranking = _ranking(players, "trump", trump)
        if ranking.suit[card] == trump:
            return 200 + ranking.strength[trump][card]
    value = plain_rank_value(card)
    # short side suits without a king are worth emptying (ruffs, and nothing to protect)
    if trump != NO_TRUMP and counts[ranking.suit[card]] <= 2 and value < 23:
        value -= 10
    return value


def _choose_discard(view: View, legal: list[Action]) -> Action:
    hand = view["hand"]
    contract = view["contract"]
    players = view["players"]
    if contract["kind"] == "contract" and contract["trump"] != NO_TRUMP:
        suit_map = _ranking(players, "trump", contract["trump"]).suit
    else:
        suit_map = {card: suit_of(card) for card in hand}
    counts: dict[str, int] = {}
    for card in hand:
        counts[suit_map[card]] = counts.get(suit_map[card], 0) + 1
    ordered = sorted(hand, key=lambda card: _keep_value(card, view, counts))
    chosen = sorted(ordered[:4], key=hand.index)
    wanted = set(chosen)
    for action in legal:
        if set(action["cards"]) == wanted:
            return action
    return legal[0]


# ---- playing -------------------------------------------------------------------------------------
def _play_ranking(view: View) -> Ranking:
    players = view["players"]
    mode = view["play_mode"]
    trump = view["contract"]["trump"] if mode == "trump" else None
    return _ranking(players, mode, trump)


def _choose_play(view: View, legal: list[Action]) -> Action:
    cards = [action["cards"][0] for action in legal]
    if len(cards) == 1:
        return legal[0]
    contract = view["contract"]
    ranking = _play_ranking(view)
    kind = contract["kind"]
    seat = view["seat"]
    if kind == "ramsch" or (kind == "misere" and seat == contract["declarer"]):
        card = _lose_trick(view, cards, ranking, ramsch=kind == "ramsch")
    elif kind == "misere":
        card = _help_declarer_win(view, cards, ranking)
    else:
        card = _win_trick(view, cards, ranking)
    return {"type": "play", "cards": [card]}


def _trick_state(view: View, ranking: Ranking) -> tuple[str | None, int, int | None]:
    """The led suit, the best strength on the table and the seat holding it."""
    plays = view["trick"]["cards"] if view["trick"] else []
    if not plays:
        return None, -2, None
    led = ranking.suit[plays[0]["card"]]
    table = ranking.strength[led]
    best = max(plays, key=lambda play: table[play["card"]])
    return led, table[best["card"]], best["seat"]


def _weakness(card: str, ranking: Ranking, led: str | None) -> tuple[int, int]:
    """Sort key for 'cheapest to give away': off-suit and low cards first, trumps last."""
    trumpish = ranking.trump is not None and ranking.suit[card] == ranking.trump
    fairy = is_fairy(card)
    power = ranking.strength[led][card] if led else 0
    return (1 if trumpish or fairy else 0, power if power >= 0 else plain_rank_value(card) - 50)


def _friends(view: View) -> set[int]:
    contract = view["contract"]
    seat = view["seat"]
    declarer = contract["declarer"]
    partners = view.get("partners")
    friends: set[int] = set()
    if partners:
        friends = next(set(pair) for pair in partners if seat in pair) - {seat}
    if contract["kind"] != "contract":
        return friends
    named_cards = {entry["card"] for entry in view["named"]}
    revealed = {entry["seat"] for entry in view["named"] if entry["seat"] is not None}
    on_side = seat == declarer or bool(named_cards & set(view["hand"])) or seat in revealed
    if on_side:
        return (friends | {declarer} | revealed) - {seat}
    return friends - {declarer} - revealed


def _win_trick(view: View, cards: list[str], ranking: Ranking) -> str:
    led, best, best_seat = _trick_state(view, ranking)
    if led is None:
        return _lead(view, cards, ranking)
    table = ranking.strength[led]
    players = view["players"]
    last = len(view["trick"]["cards"]) == players - 1
    if best_seat in _friends(view) and (last or best >= 100):
        return min(cards, key=lambda card: _weakness(card, ranking, led))
    winners = [card for card in cards if table[card] > best]
    if winners:
        return min(winners, key=lambda card: table[card])
    return min(cards, key=lambda card: _weakness(card, ranking, led))


def _lead(view: View, cards: list[str], ranking: Ranking) -> str:
    contract = view["contract"]
    trump = ranking.trump
    on_attack = contract["kind"] == "contract" and (
        view["seat"] == contract["declarer"] or contract["declarer"] in _friends(view)
    )
    if trump is not None and on_attack:
        trumps = [card for card in cards if ranking.suit[card] == trump]
        if len(trumps) >= 2:
            return max(trumps, key=lambda card: ranking.strength[trump][card])
    side = [card for card in cards if not is_fairy(card) and (trump is None or ranking.suit[card] != trump)]
    kings = [card for card in side if plain_rank_value(card) == 23]
    if kings:
        return kings[0]
    if side:
        return min(side, key=_value)
    return max(cards, key=lambda card: ranking.strength[ranking.suit[card]][card])


def _lose_trick(view: View, cards: list[str], ranking: Ranking, ramsch: bool) -> str:
    led, best, _ = _trick_state(view, ranking)
    if led is None:
        plain = [card for card in cards if not is_fairy(card)]
        return min(plain or cards, key=_value)
    table = ranking.strength[led]
    losers = [card for card in cards if table[card] < best]
    if losers:
        return max(losers, key=lambda card: (table[card], _value(card)))
    if ramsch:
        fairies = [card for card in cards if is_fairy(card)]
        if fairies:
            return fairies[0]  # a trick won with an F does not count in Ramsch
    players = view["players"]
    if len(view["trick"]["cards"]) == players - 1:
        return max(cards, key=lambda card: table[card])
    return min(cards, key=lambda card: table[card])


def _help_declarer_win(view: View, cards: list[str], ranking: Ranking) -> str:
    """Misère defenders want the declarer to take a trick."""
    contract = view["contract"]
    declarer = contract["declarer"]
    led, best, best_seat = _trick_state(view, ranking)
    open_hand = view.get("open_hand")
    if led is None:
        if open_hand:
            for card in sorted(cards, key=_value):
                theirs = [c for c in open_hand["cards"] if suit_of(c) == suit_of(card)]
                if theirs and not is_fairy(card) and all(plain_rank_value(card) < _value(c) for c in theirs):
                    return card
        plain = [card for card in cards if not is_fairy(card)]
        return min(plain or cards, key=_value)
    table = ranking.strength[led]
    played = {play["seat"] for play in view["trick"]["cards"]}
    if declarer in played and best_seat != declarer:
        return max(cards, key=lambda card: table[card])
    under = [card for card in cards if table[card] < best] if declarer in played else []
    if under:
        return max(under, key=lambda card: table[card])
    return min(cards, key=lambda card: (table[card], _value(card)))
