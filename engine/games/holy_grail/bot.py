"""A Holy Grail bot, playing from its own view only.

In this game hearts are worth having: a hand scores the heart points taken minus the base, so
the bot plays to win tricks that carry hearts and to spend as little strength as it can on the
rest. Heuristics:
- Following: if the trick holds hearts it values, it tries to win it, with its cheapest winning
  card when it plays last and its strongest when others still play after it. A trick without
  value gets its weakest card (strength is kept for tricks that pay).
- The heart 0 with the −1 flips every sign: the bot welcomes that pair when it is behind the
  base and avoids it when it is ahead; the 0 with the ∞ doubles, welcome only when ahead.
- Discarding (void in the led suit and without majors), it never gives a heart away if it can
  help it, and throws its weakest card.
- Leading: once hearts are broken it leads a strong heart to pull in the others' hearts;
  otherwise its weakest card of its shortest plain suit, to become void and trump hearts later.
"""

from __future__ import annotations

import random
from typing import Any

from engine.core import Action
from engine.games.holy_grail.cards import HEART, MINOR_STRENGTH, STRENGTH, SUIT_OF
from engine.games.holy_grail.scoring import BASE_POINTS, heart_points

STRONG_HEART = MINOR_STRENGTH["Q"]


def _beats(card: str, best: str, led: str) -> bool:
    """Whether `card` would take the lead of a trick currently won by `best` (led suit `led`)."""
    suit, best_suit = SUIT_OF[card], SUIT_OF[best]
    if suit == "M":
        return best_suit != "M" or STRENGTH[card] > STRENGTH[best]
    if best_suit == "M" or suit != led:
        return False
    return STRENGTH[card] > STRENGTH[best]


def _current_best(plays: list[str]) -> str:
    led = SUIT_OF[plays[0]]
    best = plays[0]
    for card in plays[1:]:
        if _beats(card, best, led):
            best = card
    return best


def _trick_value(cards: list[str], mine: list[str], players: int) -> int:
    """How much winning these cards is worth to the bot, counting the 0's doubling and flip."""
    hearts = [c for c in cards if SUIT_OF[c] == HEART]
    value = sum(heart_points(c, players) for c in hearts)
    after = set(mine) | set(hearts)
    ahead = sum(heart_points(c, players) for c in after) > BASE_POINTS[players]
    if "H0" in after and ("H0" in hearts or "H-1" in hearts or "HI" in hearts):
        if "H-1" in after:
            value += -60 if ahead else 60
        if "HI" in after:
            value += 30 if ahead else -30
    return value


def choose(view: dict[str, Any], legal: list[Action], rng: random.Random) -> Action:
    players: int = view["players"]
    seat: int = view["seat"]
    cards = [action["cards"][0] for action in legal]
    mine = (view.get("captured_hearts") or [[]] * players)[seat]
    trick_cards = [entry["card"] for entry in (view["trick"] or {}).get("cards", [])]
    if not trick_cards:
        return {"type": "play", "cards": [_lead(cards, view)]}
    led = SUIT_OF[trick_cards[0]]
    best = _current_best(trick_cards)
    winners = [c for c in cards if _beats(c, best, led)]
    losers = [c for c in cards if c not in winners]
    last_to_play = len(trick_cards) == players - 1
    following = SUIT_OF[cards[0]] in (led, "M")

    if not following:
        return {"type": "play", "cards": [_discard(cards, players)]}
    if winners:
        gain = max(_trick_value(trick_cards + [c], mine, players) for c in winners)
        if gain > 0 or not losers:
            chosen = [c for c in winners if _trick_value(trick_cards + [c], mine, players) == gain]
            if last_to_play or not losers:
                pick = min(chosen, key=lambda c: (SUIT_OF[c] == "M", STRENGTH[c]))
            else:
                pick = max(chosen, key=lambda c: STRENGTH[c])
            return {"type": "play", "cards": [pick]}
    pick = min(losers, key=lambda c: (SUIT_OF[c] == HEART, STRENGTH[c]))
    return {"type": "play", "cards": [pick]}


def _discard(cards: list[str], players: int) -> str:
    plain = [c for c in cards if SUIT_OF[c] != HEART]
    if plain:
        return min(plain, key=lambda c: STRENGTH[c])
    return min(cards, key=lambda c: (heart_points(c, players), STRENGTH[c]))


def _lead(cards: list[str], view: dict[str, Any]) -> str:
    hand: list[str] = view["hand"]
    suit_length: dict[str, int] = {}
    for card in hand:
        suit_length[SUIT_OF[card]] = suit_length.get(SUIT_OF[card], 0) + 1
    strong_hearts = [c for c in cards if SUIT_OF[c] == HEART and STRENGTH[c] >= STRONG_HEART]
    if view.get("hearts_broken") and strong_hearts:
        return max(strong_hearts, key=lambda c: STRENGTH[c])
    plain = [c for c in cards if SUIT_OF[c] not in (HEART, "M")]
    if plain:
        return min(plain, key=lambda c: (suit_length[SUIT_OF[c]], STRENGTH[c]))
    majors = [c for c in cards if SUIT_OF[c] == "M"]
    if majors:
        return max(majors, key=lambda c: STRENGTH[c])
    return max(cards, key=lambda c: STRENGTH[c])
