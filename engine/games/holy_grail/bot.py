"""A Holy Grail bot that plays like a careful hearts player, from its own view only.

Heuristics, in order:
- Following a trick it cannot avoid winning (every legal card wins), it wins with its
  strongest such card (sheds a dangerous high card at no extra cost).
- Following when it can lose, it plays its strongest card that still loses (ducking), so
  high cards leave its hand while someone else takes the hearts.
- Last to play on a heartless trick it may win with its strongest card: the trick is cheap
  and it gets rid of a card that would later take hearts.
- Discarding (void in the led suit and in majors), it throws its most expensive heart,
  otherwise its highest card.
- Leading, it plays its lowest card of its shortest non-heart suit, keeping majors for control.
"""

from __future__ import annotations

import random
from typing import Any

from engine.core import Action
from engine.games.holy_grail.cards import HEART, STRENGTH, SUIT_OF
from engine.games.holy_grail.scoring import heart_points


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


def choose(view: dict[str, Any], legal: list[Action], rng: random.Random) -> Action:
    players: int = view["players"]
    cards = [action["cards"][0] for action in legal]
    trick_cards = [entry["card"] for entry in (view["trick"] or {}).get("cards", [])]
    if not trick_cards:
        return {"type": "play", "cards": [_lead(cards, view["hand"])]}
    led = SUIT_OF[trick_cards[0]]
    best = _current_best(trick_cards)
    winners = [c for c in cards if _beats(c, best, led)]
    losers = [c for c in cards if c not in winners]
    last_to_play = len(trick_cards) == players - 1
    hearts_in_trick = any(SUIT_OF[c] == HEART for c in trick_cards)
    following = SUIT_OF[cards[0]] == led or SUIT_OF[cards[0]] == "M"
    if not losers:
        pick = max(winners, key=lambda c: STRENGTH[c])
    elif last_to_play and not hearts_in_trick and winners and following:
        pick = max(winners, key=lambda c: (SUIT_OF[c] != HEART, STRENGTH[c]))
    elif not following:
        pick = _discard(losers, players)
    else:
        pick = max(losers, key=lambda c: STRENGTH[c])
    return {"type": "play", "cards": [pick]}


def _discard(cards: list[str], players: int) -> str:
    hearts = [c for c in cards if SUIT_OF[c] == HEART]
    if hearts:
        return max(hearts, key=lambda c: (heart_points(c, players), STRENGTH[c]))
    return max(cards, key=lambda c: STRENGTH[c])


def _lead(cards: list[str], hand: list[str]) -> str:
    suit_length: dict[str, int] = {}
    for card in hand:
        suit_length[SUIT_OF[card]] = suit_length.get(SUIT_OF[card], 0) + 1
    plain = [c for c in cards if SUIT_OF[c] not in (HEART, "M")]
    if plain:
        return min(plain, key=lambda c: (suit_length[SUIT_OF[c]], STRENGTH[c]))
    majors = [c for c in cards if SUIT_OF[c] == "M"]
    if majors:
        return min(majors, key=lambda c: STRENGTH[c])
    return min(cards, key=lambda c: (heart_points(c, 10), STRENGTH[c]))
