"""A French Tarot bot that plays from its own view and the legal-action list only.

It values its hand the way a club player would (oudlers first, then trump length, kings, long
suits and voids) to choose a contract; it discards to create voids and bank points; it calls the
king of the suit it is longest in; as taker it declares poignées; in play it saves the petit,
cashes kings while suits are still followed, feeds points to a trick its side is winning, wins
cheaply when it must, and spends the excuse before the last trick. Every decision is a few list
passes over at most 24 cards, far below the 0.5 s budget.
"""

from __future__ import annotations

import random
from typing import Any

from engine.cards import EXCUSE, french_card_points

from .rules import HAND_SIZE, PETIT, RANK_ORDER, SUITS, trick_winner_seat, trump_number
from .scoring import CONTRACTS

Action = dict[str, Any]

BID_THRESHOLDS = {
    3: {"prise": 34, "garde": 43, "garde_sans": 53, "garde_contre": 61},
    4: {"prise": 37, "garde": 48, "garde_sans": 60, "garde_contre": 68},
    5: {"prise": 34, "garde": 45, "garde_sans": 56, "garde_contre": 64},
}
"""Hand-evaluation points (scaled to an 18-card hand) needed for each contract, by player count.
Calibrated by bot self-play: at the prise threshold the taker wins about half the time, at garde
about seven times in ten."""


def strength(card: str) -> int:
    """Order of cards for 'cheapest' and 'strongest' choices: plain ranks, then trumps."""
    if card == EXCUSE:
        return 0
    if card[0] == "T":
        return 100 + trump_number(card)
    return RANK_ORDER[card[1:]] + 1


def evaluate_hand(hand: list[str], players: int) -> float:
    """A bidding value for `hand`, scaled so that 18 cards compare across player counts."""
    trumps = [c for c in hand if c[0] == "T"]
    value = 0.0
    if "T21" in hand:
        value += 10
    if PETIT in hand:
        value += 8 if len(trumps) >= 6 else 3
    if EXCUSE in hand:
        value += 7
    value += 2 * len(trumps)
    value += sum(2 for c in trumps if trump_number(c) >= 16)
    for suit in SUITS:
        cards = [c for c in hand if c[0] == suit]
        ranks = {c[1:] for c in cards}
        if "K" in ranks:
            value += 6
            if "Q" in ranks:
                value += 2
        elif "Q" in ranks:
            value += 3
        if len(cards) >= 5:
            value += 2 * (len(cards) - 4)
        if not cards and len(trumps) >= 5:
            value += 6
        elif len(cards) == 1 and len(trumps) >= 5:
            value += 3
    return value * 18 / HAND_SIZE[players]


def choose(view: dict[str, Any], legal: list[Action], rng: random.Random) -> Action:
    """The bot's action for the phase in `view`."""
    phase = view["phase"]
    if phase == "deal" or len(legal) == 1:
        return legal[0]
    if phase == "bid":
        return _bid(view, legal)
    if phase == "call":
        return _call(view, legal)
    if phase == "discard":
        return _discard(view, legal)
    if phase == "slam":
        return _slam(view, legal)
    return _play(view, legal, rng)


# ---- bidding, calling, discarding ------------------------------------------------------------------
def _bid(view: dict[str, Any], legal: list[Action]) -> Action:
    petit_sec = {"type": "declare", "what": "petit_sec"}
    if petit_sec in legal:
        return petit_sec
    value = evaluate_hand(view["hand"], view["players"])
    best: Action = {"type": "pass"}
    for contract in CONTRACTS:
        action = {"type": "bid", "contract": contract}
        if action in legal and value >= BID_THRESHOLDS[view["players"]][contract]:
            best = action
    return best


def _call(view: dict[str, Any], legal: list[Action]) -> Action:
    hand = view["hand"]
    others = [a for a in legal if a["card"] not in hand] or legal
    return max(others, key=lambda a: (sum(1 for c in hand if c[0] == a["card"][0]), a["card"]))


def _discard(view: dict[str, Any], legal: list[Action]) -> Action:
    hand = view["hand"]
    lengths = {suit: sum(1 for c in hand if c[0] == suit and c[1:] != "K") for suit in SUITS}

    def merit(action: Action) -> tuple[float, int]:
        card = action["cards"][0]
        if card[0] == "T":
            return (-100 - trump_number(card), 0)
        # Short suits first (voids let the taker trump), then the points it banks.
        return (-lengths[card[0]] * 3 + french_card_points(card), strength(card))

    return max(legal, key=merit)


def _slam(view: dict[str, Any], legal: list[Action]) -> Action:
    hand = view["hand"]
    trumps = [c for c in hand if c[0] == "T"]
    kings = [c for c in hand if c[1:] == "K" and c[0] != "T"]
    masters = len(trumps) + len(kings) + (EXCUSE in hand)
    sure = "T21" in hand and masters >= len(hand) - 1 and len(trumps) >= 12
    announce = {"type": "declare", "what": "slam"}
    return announce if sure and announce in legal else {"type": "pass"}


# ---- trick play ----------------------------------------------------------------------------------------
def _friends(view: dict[str, Any]) -> set[int]:
    """Seats the bot knows to be on its side (itself included)."""
    me, taker, partner = view["seat"], view["taker"], view["partner"]
    holds_called = view["called_card"] in view["hand"]
    if me == taker:
        return {me} | ({partner} if partner is not None else set())
    if holds_called or me == partner:
        return {me, taker}
    if view["players"] == 5 and partner is None:
        return {me}  # the partner is still secret: only the taker is a known opponent
    opponents = {taker} | ({partner} if partner is not None else set())
    return set(range(view["players"])) - opponents


def _play(view: dict[str, Any], legal: list[Action], rng: random.Random) -> Action:
    declares = [a for a in legal if a["type"] == "declare"]
    plays = [a["cards"][0] for a in legal if a["type"] == "play"]
    if declares and _wants_poignee(view, declares):
        return max(declares, key=lambda a: len(a["cards"]))
    card = _pick_card(view, plays, rng)
    return {"type": "play", "cards": [card]}


def _wants_poignee(view: dict[str, Any], declares: list[Action]) -> bool:
    me = view["seat"]
    if me == view["taker"] or view["called_card"] in view["hand"]:
        return True
    return any(a["level"] != "simple" for a in declares)


def _pick_card(view: dict[str, Any], plays: list[str], rng: random.Random) -> str:
    hand = view["hand"]
    trick = view["trick"] or {"cards": []}
    plays_so_far = [(p["seat"], p["card"]) for p in trick["cards"]]
    me = view["seat"]
    friends = _friends(view)
    players = view["players"]
    cards_left = len(hand)
    played = {c for t in view["played_tricks"] for c in (p["card"] for p in t["cards"])}
    non_excuse = [c for c in plays if c != EXCUSE]

    # The excuse: spend it before the last trick (unless every trick so far was ours).
    if EXCUSE in plays:
        tricks = view["played_tricks"]
        all_ours = bool(tricks) and all(t["winner"] in friends for t in tricks)
        if cards_left == 1:
            return EXCUSE
        if cards_left == 2 and not all_ours:
            return EXCUSE
        if not non_excuse:
            return EXCUSE
        if plays_so_far and _excuse_saves_points(plays_so_far, non_excuse, me, friends):
            return EXCUSE
    if not non_excuse:
        return plays[0]

    if not plays_so_far:
        return _lead(view, non_excuse, played, friends)

    last_to_play = len(plays_so_far) == players - 1
    winner_now = trick_winner_seat(plays_so_far)
    winning_cards = [c for c in non_excuse if trick_winner_seat([*plays_so_far, (me, c)]) == me]
    friend_winning = winner_now in friends and winner_now != -1
    safe_petit = PETIT in non_excuse and (
        (friend_winning and any(c[0] == "T" and trump_number(c) > 1 for _, c in plays_so_far))
        or (PETIT in winning_cards and last_to_play)
    )
    if safe_petit or (non_excuse == [PETIT]):
        return PETIT
    keep_petit = [c for c in non_excuse if c != PETIT] or non_excuse
    winning_cards = [c for c in winning_cards if c != PETIT] or winning_cards

    if friend_winning:
        best_friend = max((strength(c) for s, c in plays_so_far if s == winner_now), default=0)
        safe = last_to_play or best_friend >= 118 or _friend_card_is_master(plays_so_far, winner_now, played)
        if safe:
            # Feed points, but do not overtake a friend with a big trump needlessly.
            return max(keep_petit, key=lambda c: (french_card_points(c) if c[0] != "T" else 0, -strength(c)))
        return min(keep_petit, key=lambda c: (french_card_points(c), strength(c)))
    trick_points = sum(french_card_points(c) for _, c in plays_so_far)
    if winning_cards and (last_to_play or trick_points >= 4 or any(c[0] != "T" for c in winning_cards)):
        if last_to_play:
            return min(winning_cards, key=strength)
        plain = [c for c in winning_cards if c[0] != "T"]
        if plain:
            return max(plain, key=strength)
        return max(winning_cards, key=lambda c: (trump_number(c) < 21 or trick_points >= 8, strength(c)))
    if winning_cards and rng.random() < 0.3:
        return min(winning_cards, key=strength)
    return min(keep_petit, key=lambda c: (french_card_points(c), strength(c)))


def _excuse_saves_points(
    plays: list[tuple[int, str]], options: list[str], me: int, friends: set[int]
) -> bool:
    """True when an opponent takes the trick and every other legal card would give away points."""
    winner = trick_winner_seat(plays)
    if winner in friends:
        return False
    can_win = any(trick_winner_seat([*plays, (me, c)]) == me for c in options)
    cheapest = min(french_card_points(c) for c in options)
    return not can_win and cheapest >= 2.5


def _friend_card_is_master(plays: list[tuple[int, str]], seat: int, played: set[str]) -> bool:
    """A friend's plain king in a trick nobody has trumped yet is likely to hold."""
    card = next(c for s, c in plays if s == seat)
    return card[0] != "T" and card[1:] == "K" and not any(c[0] == "T" for _, c in plays)


def _lead(view: dict[str, Any], cards: list[str], played: set[str], friends: set[int]) -> str:
    hand = view["hand"]
    me = view["seat"]
    is_taker_side = me == view["taker"] or view["called_card"] in hand
    trumps = [c for c in cards if c[0] == "T"]
    trumps_out = 21 - sum(1 for c in played if c[0] == "T") - len([c for c in hand if c[0] == "T"])
    suits_cut = {t["cards"][0]["card"][0] for t in view["played_tricks"] if _was_trumped(t)}
    kings = [c for c in cards if c[1:] == "K" and c[0] != "T" and c[0] not in suits_cut]
    if kings:
        return kings[0]
    if is_taker_side and len(trumps) >= 5 and trumps_out > 0:
        non_petit = [c for c in trumps if c != PETIT]
        if non_petit:
            high = max(non_petit, key=trump_number)
            return high if trump_number(high) >= 18 else min(non_petit, key=trump_number)
    plain = [c for c in cards if c[0] != "T"]
    if plain:
        by_suit: dict[str, list[str]] = {}
        for c in plain:
            by_suit.setdefault(c[0], []).append(c)
        called = view["called_card"]
        if not is_taker_side and called and called[0] in by_suit and view["partner"] is None:
            suit = called[0]  # the defence leads the called suit to flush the secret partner out
        else:
            suit = max(by_suit, key=lambda s: (len(by_suit[s]), s))
        return min(by_suit[suit], key=strength)
    non_petit = [c for c in trumps if c != PETIT] or trumps
    return min(non_petit, key=trump_number)


def _was_trumped(trick: dict[str, Any]) -> bool:
    cards = [p["card"] for p in trick["cards"]]
    led = next((c for c in cards if c != EXCUSE), "")
    return led[:1] != "T" and any(c[0] == "T" for c in cards)
